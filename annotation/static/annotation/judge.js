// Keyboard judging. Every label has a key (shown as <kbd>); Likert lines take a digit each, in
// turn; Enter submits, s skips, u reopens the last judgement. Keys are ignored while typing.
(function () {
  "use strict";
  var form = document.getElementById("judgement-form");
  if (!form) return;
  var skipForm = document.getElementById("skip-form");
  var undoLink = document.getElementById("undo-link");

  function typing(target) {
    return target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text");
  }

  function currentDimension() {
    var dimensions = form.querySelectorAll("fieldset.dimension");
    if (!dimensions.length) return null;
    var focused = document.activeElement && document.activeElement.closest("fieldset.dimension");
    if (focused) return focused;
    for (var i = 0; i < dimensions.length; i++) {
      if (!dimensions[i].querySelector("input:checked")) return dimensions[i];
    }
    return dimensions[dimensions.length - 1];
  }

  function choose(key) {
    var scope = currentDimension() || form;
    var radio = scope.querySelector('input[type="radio"][data-key="' + key + '"]');
    if (!radio) return false;
    radio.checked = true;
    var dimension = radio.closest("fieldset.dimension");
    if (dimension) {
      var next = dimension.nextElementSibling;
      while (next && !next.matches("fieldset.dimension")) next = next.nextElementSibling;
      var target = next ? (next.querySelector("input:checked") || next.querySelector("input")) : radio;
      target.focus();
    } else {
      radio.focus();
    }
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.metaKey) return;
    if (typing(event.target)) {
      if (event.key === "Enter" && event.ctrlKey) { event.preventDefault(); form.requestSubmit(); }
      return;
    }
    if (event.ctrlKey) return;
    if (event.key === "Enter") {
      if (event.target.tagName === "BUTTON" || event.target.tagName === "A") return;
      event.preventDefault();
      form.requestSubmit();
    } else if (event.key === "s" && skipForm) {
      event.preventDefault();
      skipForm.requestSubmit();
    } else if (event.key === "u" && undoLink) {
      event.preventDefault();
      window.location.href = undoLink.href;
    } else if (event.key.length === 1 && choose(event.key)) {
      event.preventDefault();
    }
  });

  // Word count for free-text answers.
  form.querySelectorAll("textarea[data-max-words]").forEach(function (area) {
    var counter = document.getElementById(area.getAttribute("aria-describedby"));
    var limit = parseInt(area.dataset.maxWords, 10);
    function update() {
      var words = area.value.trim() ? area.value.trim().split(/\s+/).length : 0;
      counter.textContent = words + " of " + limit + " words";
      area.setCustomValidity(words > limit ? "At most " + limit + " words, please." : "");
    }
    area.addEventListener("input", update);
    update();
  });

  // Time on this task.
  var elapsed = document.getElementById("elapsed");
  if (elapsed) {
    var since = Date.parse(elapsed.dataset.since);
    var tick = function () {
      var seconds = Math.max(0, Math.floor((Date.now() - since) / 1000));
      elapsed.textContent = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
    };
    tick();
    setInterval(tick, 1000);
  }

  // Start where the keyboard can work: the first unanswered line, or the text box.
  var first = form.querySelector("textarea") || null;
  if (first) first.focus();
  document.documentElement.dataset.keyboard = "ready";  // for tests and assistive tools
})();
