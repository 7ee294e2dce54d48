/* Progress bars of long jobs (schedule generation, simulations, newsletter builds): poll the job's
   status JSON and move the bar. The page marks its bar with data-progress="schedule|simulation|
   newsletter" and data-status-url; it loads this file only while the job is unfinished. */
(function () {
  "use strict";
  var DELAYED = {
    schedule: "Waiting for the task runner: it cannot be reached just now. Generation is delayed, not lost.",
    newsletter: "Waiting for the task runner: it cannot be reached just now. The draft is delayed, not lost."
  };

  function setWidth(bar, percent) {
    bar.style.width = Math.max(percent, 5) + "%";
  }

  var handlers = {
    schedule: function (s, bar, msg) {
      if (s.state === "SUCCESS") { msg.textContent = s.total + " fixtures created."; window.location = s.next_url; return false; }
      if (s.state === "FAILURE") { bar.classList.add("bg-danger"); msg.textContent = "Could not generate: " + (s.error || "error"); return false; }
      msg.textContent = s.total ? (s.done + " of " + s.total + " fixtures…") : (s.delayed ? DELAYED.schedule : "Waiting for a worker…");
      return true;
    },
    simulation: function (s, bar, msg) {
      if (s.state === "SUCCESS") {
        bar.classList.remove("progress-bar-animated");
        msg.textContent = s.done + " matches simulated. " + (s.note || ""); window.location = s.next_url; return false;
      }
      if (s.state === "FAILURE") { bar.classList.add("bg-danger"); msg.textContent = "The simulation stopped: " + (s.error || "error"); return false; }
      msg.textContent = s.total ? (s.done + " of " + s.total + " matches…") : "Waiting for a worker…";
      return true;
    },
    newsletter: function (s, bar, msg) {
      msg.textContent = s.delayed ? DELAYED.newsletter : (s.step || "Waiting for a worker…");
      if (s.state === "done") { window.location = s.next_url; return false; }
      if (s.state === "failed") { bar.classList.add("bg-danger"); msg.textContent = "Could not write the draft: " + (s.error || "error"); return false; }
      return true;
    }
  };

  document.querySelectorAll("[data-progress]").forEach(function (box) {
    var handle = handlers[box.dataset.progress];
    var bar = box.querySelector(".progress-bar");
    var msg = document.getElementById(box.dataset.message);
    if (!handle || !bar || !msg) { return; }
    function poll() {
      fetch(box.dataset.statusUrl, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.json(); })
        .then(function (s) {
          setWidth(bar, s.percent);
          box.setAttribute("aria-valuenow", s.percent);
          if (handle(s, bar, msg)) { setTimeout(poll, 800); }
        })
        .catch(function () { setTimeout(poll, 2000); });
    }
    poll();
  });
})();
