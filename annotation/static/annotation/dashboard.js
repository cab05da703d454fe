// Keeps the researcher's progress figures live: polls the project's progress.json every 5 s.
(function () {
  "use strict";
  var section = document.getElementById("progress");
  if (!section || !window.fetch) return;
  var stamp = document.getElementById("progress-updated");

  function show(figures) {
    section.querySelectorAll("[data-figure]").forEach(function (element) {
      var value = figures[element.dataset.figure];
      if (element.tagName === "PROGRESS") {
        element.value = Math.round(value || 0);
        element.textContent = Math.round(value || 0) + "%";
        return;
      }
      if (value === null || value === undefined) { element.textContent = "—"; return; }
      var digits = element.dataset.digits;
      element.textContent = digits ? Number(value).toFixed(parseInt(digits, 10)) : String(value);
    });
    // Figures said in words (the rate with its window and count, time on task, the forecast).
    section.querySelectorAll("[data-text]").forEach(function (element) {
      var text = (figures.text || {})[element.dataset.text];
      if (text) element.textContent = text;
    });
    stamp.textContent = new Date().toLocaleTimeString();
  }

  function poll() {
    fetch(section.dataset.url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (figures) { if (figures) show(figures); })
      .catch(function () { /* try again at the next tick */ });
  }
  setInterval(poll, 5000);
})();
