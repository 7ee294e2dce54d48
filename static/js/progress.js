/* The progress bar of a long job (includes/_progress.html): poll the job's status view
   (outbox/progress.py), move the bar, show its sentence; once done, go to the job's next page. */
(function () {
  "use strict";
  document.querySelectorAll("[data-progress]").forEach(function (box) {
    var bar = box.querySelector(".progress-bar");
    var msg = document.getElementById(box.dataset.message);
    if (!bar || !msg) { return; }
    function poll() {
      fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.json(); })
        .then(function (s) {
          bar.style.width = Math.max(s.percent, 5) + "%";
          box.setAttribute("aria-valuenow", s.percent);
          msg.textContent = s.message;
          if (s.phase === "failed") { bar.classList.remove("progress-bar-animated"); bar.classList.add("bg-danger"); return; }
          if (s.phase === "done") { bar.classList.remove("progress-bar-animated"); window.location = s.next_url; return; }
          setTimeout(poll, 800);
        })
        .catch(function () { setTimeout(poll, 2000); });
    }
    poll();
  });
})();
