// The end of a study session goes back to the platform by itself after a countdown, which the
// worker can stop ("Stay on this page"): a time limit they can turn off (WCAG 2.2.1), unlike a
// meta refresh. Without this script the page keeps its button and nothing moves.
(function () {
  "use strict";
  var countdown = document.getElementById("study-countdown");
  var back = document.getElementById("study-return");
  if (!countdown || !back) return;
  var left = parseInt(countdown.dataset.seconds, 10);
  var shown = countdown.querySelector("[data-left]");
  var stay = document.getElementById("study-stay");
  countdown.hidden = false;
  var timer = setInterval(function () {
    left -= 1;
    shown.textContent = String(Math.max(left, 0));
    if (left <= 0) {
      clearInterval(timer);
      window.location.assign(back.href);
    }
  }, 1000);
  stay.addEventListener("click", function () {
    clearInterval(timer);
    countdown.textContent = "You stay on this page: the button above takes you back when you are ready.";
    back.focus();
  });
})();
