// The API's documentation page: what Swagger UI's markup leaves out for WCAG 2.1 AA, added as it renders.
// - A scrollable example (pre) takes keyboard focus, so it can be scrolled without a mouse (2.1.1).
// - A parameter's select is named after its parameter (4.1.2).
(function () {
  "use strict";
  function mend(root) {
    root.querySelectorAll(".microlight, .body-param__example, pre.example").forEach(function (pre) {
      if (!pre.hasAttribute("tabindex")) {
        pre.setAttribute("tabindex", "0");
      }
    });
    root.querySelectorAll("tr[data-param-name] select:not([aria-label])").forEach(function (select) {
      var row = select.closest("tr[data-param-name]");
      select.setAttribute("aria-label", row.getAttribute("data-param-name"));
    });
  }
  var target = document.getElementById("swagger-ui");
  if (!target) {
    return;
  }
  new MutationObserver(function () { mend(target); }).observe(target, { childList: true, subtree: true });
  mend(target);
})();
