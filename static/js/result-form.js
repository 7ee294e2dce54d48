/* The result form on a phone (issue 13, part 4), kept out of the HTML for the
   Content-Security-Policy:
   - a model not on the board collapses to its name and the "On the board" box;
   - counts get - and + steppers (touch targets; out of the tab order, the keyboard has arrows);
   - Brawl's "Injures an enemy model" follows the Injuries typed until the player changes it;
   - the sticky bar never covers the field that has focus: it is scrolled above the bar. */
(function () {
  "use strict";
  var form = document.querySelector("form.result-form");
  if (!form) {
    return;
  }

  function bar() {
    return form.querySelector(".result-bar");
  }

  // Models not on the board collapse.
  function collapse(fieldset) {
    var played = fieldset.querySelector("input[data-played]");
    var details = fieldset.querySelector(".model-details");
    if (played && details) {
      details.hidden = !played.checked;
    }
  }
  form.querySelectorAll("fieldset.model").forEach(collapse);
  form.addEventListener("change", function (event) {
    if (event.target.matches("input[data-played]")) {
      collapse(event.target.closest("fieldset.model"));
    }
  });

  // Steppers for every count.
  form.querySelectorAll("input.count-input").forEach(function (input) {
    var label = form.querySelector("label[for='" + input.id + "']");
    var legend = input.closest("fieldset.model");
    var name = (label ? label.textContent.replace("*", "").trim() : input.name) +
      (legend ? ", " + legend.querySelector("legend").dataset.model : "");
    var group = document.createElement("div");
    group.className = "input-group input-group-sm stepper";
    input.parentNode.insertBefore(group, input);
    function button(text, delta, aria) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "btn btn-outline-secondary stepper-btn";
      b.tabIndex = -1;
      b.textContent = text;
      b.setAttribute("aria-label", aria + ": " + name);
      b.addEventListener("click", function () {
        var min = input.min === "" ? 0 : parseInt(input.min, 10);
        var max = input.max === "" ? 99 : parseInt(input.max, 10);
        var value = parseInt(input.value, 10);
        if (isNaN(value)) {
          value = input.dataset.follows ? parseInt(followed(input).value, 10) || 0 : 0;
        }
        if (input.dataset.follows) {
          input.dataset.following = "";  // the player corrects it himself
        }
        input.value = Math.min(max, Math.max(min, value + delta));
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      return b;
    }
    group.appendChild(button("\u2212", -1, "One fewer"));
    group.appendChild(input);
    group.appendChild(button("+", 1, "One more"));
  });

  // Brawl: "Injures an enemy model" follows the Injuries until the player changes it himself.
  function followed(input) {
    return document.getElementById(input.dataset.follows);
  }
  form.querySelectorAll("input[data-follows]").forEach(function (input) {
    var source = followed(input);
    if (!source) {
      return;
    }
    if (input.value === "") {
      input.value = source.value || "0";
      input.dataset.following = "1";
    } else if (input.value === (source.value || "0")) {
      input.dataset.following = "1";
    }
    source.addEventListener("input", function () {
      if (input.dataset.following === "1") {
        input.value = source.value || "0";
      }
    });
    input.addEventListener("input", function (event) {
      if (event.isTrusted) {
        input.dataset.following = "";
      }
    });
  });

  // The sticky bar never covers the focused field.
  form.addEventListener("focusin", function (event) {
    var b = bar();
    if (!b || event.target.closest(".result-bar")) {
      return;
    }
    var target = event.target.closest(".form-check, .stepper, .mb-3, fieldset.model legend") || event.target;
    var rect = target.getBoundingClientRect();
    var top = b.getBoundingClientRect().top;
    var margin = 8;
    if (rect.bottom > top - margin) {
      window.scrollBy(0, rect.bottom - top + margin);
    }
  });
})();
