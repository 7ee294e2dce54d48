/* Small behaviours of the site's pages, kept out of the HTML so the Content-Security-Policy needs
   no inline script (docs/security.md, "Trust, round 2", 9). */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-action=print]");
    if (button) {
      event.preventDefault();
      window.print();
    }
  });
})();
