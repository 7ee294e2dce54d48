"""The suite's layout: pytest imports test modules by their file name (no packages under tests/),
so two modules of the same name in different folders stop the whole run at collection. A run of
one folder does not see it; this test, in the folder every full run collects, does."""

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _modules_by_name(root):
    names = defaultdict(list)
    for path in root.rglob("test_*.py"):
        if "__pycache__" not in path.parts:
            names[path.name].append(path.relative_to(root).as_posix())
    return names


def test_no_two_test_modules_share_a_file_name():
    shared = {name: sorted(paths) for name, paths in _modules_by_name(TESTS).items() if len(paths) > 1}
    assert shared == {}


def test_the_check_sees_a_name_shared_by_two_folders(tmp_path):
    for folder in ("api", "league"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test_pages.py").write_text("")
    (tmp_path / "league" / "test_other.py").write_text("")
    names = _modules_by_name(tmp_path)
    assert sorted(names["test_pages.py"]) == ["api/test_pages.py", "league/test_pages.py"]
    assert names["test_other.py"] == ["league/test_other.py"]
