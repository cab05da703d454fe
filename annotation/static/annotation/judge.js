// Keyboard judging. Every label has a key (shown as <kbd>); Likert lines take a digit each, in
// turn; Enter submits, s skips, u reopens the last judgement. Keys are ignored while typing. With
// one-key answering on (the form says data-one-key), the key that completes the answer sends it.
//
// One round trip per judgement: the page's forms (data-inline) are sent with fetch, and the server
// answers with the judging page of the next task, whose <main> replaces this one. Without fetch, or
// when the answer is not the judging page (logged out, refused), the browser goes as it would
// without this script: forms post, and the server redirects to the judging page.
(function () {
  "use strict";
  var root = document.documentElement;
  var sending = false;
  var ticker = null;

  function judgementForm() { return document.getElementById("judgement-form"); }

  function typing(target) {
    return target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text");
  }

  function currentDimension(form) {
    var dimensions = form.querySelectorAll("fieldset.dimension");
    if (!dimensions.length) return null;
    var focused = document.activeElement && document.activeElement.closest("fieldset.dimension");
    if (focused) return focused;
    for (var i = 0; i < dimensions.length; i++) {
      if (!dimensions[i].querySelector("input:checked")) return dimensions[i];
    }
    return dimensions[dimensions.length - 1];
  }

  function choose(form, key) {
    var scope = currentDimension(form) || form;
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
    var form = judgementForm();
    if (!form || sending || event.altKey || event.metaKey) return;
    if (typing(event.target)) {
      if (event.key === "Enter" && event.ctrlKey) { event.preventDefault(); form.requestSubmit(); }
      return;
    }
    if (event.ctrlKey) {  // Ctrl+Enter sends from anywhere in the form, as from a text box
      if (event.key === "Enter" && form.contains(event.target)) { event.preventDefault(); form.requestSubmit(); }
      return;
    }
    var skipForm = document.getElementById("skip-form");
    var undoLink = document.getElementById("undo-link");
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
    } else if (event.key.length === 1 && choose(form, event.key)) {
      event.preventDefault();
      // checkValidity: every line answered, and a required rationale written, before it goes.
      if (form.hasAttribute("data-one-key") && form.checkValidity()) form.requestSubmit();
    }
  });

  // -- one round trip per judgement -----------------------------------------------------------

  function swapIn(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var main = document.querySelector("main");
    var next = fresh.querySelector("main");
    if (!main || !next) { window.location.reload(); return; }
    next.querySelectorAll("script").forEach(function (script) { script.remove(); });
    main.replaceWith(document.adoptNode(next));
    document.title = fresh.title;
    window.scrollTo(0, 0);
    start();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute("data-inline") || !window.fetch || !window.DOMParser) return;
    event.preventDefault();
    if (sending) return;  // a second Enter while the first answer is on its way
    sending = true;
    root.dataset.keyboard = "sending";
    form.setAttribute("aria-busy", "true");
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: {"X-Judging": "inline"}
    }).then(function (response) {
      if (response.headers.get("X-Judging-Page") !== "1") {
        // Not the judging page: the login page after a redirect, or a refusal. Show it as is.
        window.location.assign(response.redirected ? response.url : window.location.href);
        return null;
      }
      return response.text();
    }).then(function (html) {
      sending = false;
      if (html !== null) swapIn(html);
    }).catch(function () {
      // The network failed: post the form the plain way (a second copy of an answer that did
      // arrive is refused by the server, so it is stored once).
      sending = false;
      HTMLFormElement.prototype.submit.call(form);
    });
  });

  // -- what each page needs when it is shown ----------------------------------------------------

  function start() {
    var form = judgementForm();
    if (form) {
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
    }

    // Time on this task, from the seconds the server counted when it rendered the page (no clock
    // of this machine is compared with the server's); for a crowd worker's session of minutes, the
    // time it has left, counted down the same way (an answer to the task in hand still counts after).
    if (ticker) clearInterval(ticker);
    ticker = null;
    var elapsed = document.getElementById("elapsed");
    var left = document.getElementById("session-left");
    if (elapsed || left) {
      var shownBefore = elapsed ? parseInt(elapsed.dataset.seconds, 10) || 0 : 0;
      var leftAtStart = left ? parseInt(left.dataset.seconds, 10) || 0 : 0;
      var since = Date.now();
      var clock = function (seconds) {
        return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      };
      var tick = function () {
        var passed = Math.max(0, Math.floor((Date.now() - since) / 1000));
        if (elapsed) elapsed.textContent = clock(shownBefore + passed);
        if (left) {
          left.textContent = leftAtStart > passed
            ? clock(leftAtStart - passed) : "none (your answer to this item still counts)";
        }
      };
      tick();
      ticker = setInterval(tick, 1000);
    }

    // Start where the keyboard can work: the text box, or the page's own first control.
    var first = (form && form.querySelector("textarea")) || document.querySelector("main [autofocus]");
    if (first) first.focus();
    root.dataset.keyboard = "ready";  // for tests and assistive tools
  }

  start();
})();
