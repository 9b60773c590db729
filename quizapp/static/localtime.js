/* Times in the learner's own time zone: every <time class="local-time" datetime="...Z"> that the server
   wrote in UTC (quizapp/learning/timetext.py) is rewritten with Intl.DateTimeFormat in the browser's zone
   and the page's language; the UTC text stays as the element's title. Without this script (or without
   Intl) the UTC text, which names its zone, stays. */
(function () {
  "use strict";

  function formatter() {
    if (typeof Intl === "undefined" || !Intl.DateTimeFormat) return null;
    var lang = document.documentElement.lang || undefined;
    try {
      return new Intl.DateTimeFormat(lang, {
        year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
        timeZoneName: "short"
      });
    } catch (e) {
      return null;
    }
  }

  function localise(root) {
    var fmt = formatter();
    if (!fmt) return;
    var nodes = (root || document).querySelectorAll("time.local-time[datetime]:not([data-local])");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var when = new Date(node.getAttribute("datetime"));
      if (isNaN(when.getTime())) continue;
      node.title = node.textContent;
      node.textContent = fmt.format(when);
      node.setAttribute("data-local", "1");
    }
  }

  window.quizLocalTime = localise;  // for parts of a page drawn later (quiz.js's previous attempts)
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { localise(document); });
  } else {
    localise(document);
  }
})();
