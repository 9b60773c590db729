/* "Your previous attempts" on a question page keeps up with the answers given on it: each time quiz.js
   shows a verdict (the article's data-state becomes "graded"), the block is fetched again from
   /questions/<id>/memory (quizapp/learning/pages.py) and put in place of the old one, without a reload. */
(function () {
  "use strict";
  var root = document.getElementById("question");
  var block = document.getElementById("learner-memory");
  if (!root || !block || !window.fetch || !window.MutationObserver) return;
  var config = {};
  try { config = JSON.parse(root.getAttribute("data-config") || "{}"); } catch (e) { return; }
  if (!config.qid) return;

  function refresh() {
    var url = location.pathname.replace(/\/?$/, "") + "/memory";
    if (/[?&]review=1(&|$)/.test(location.search)) url += "?review=1";
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (res) {
      return res.ok ? res.text() : null;
    }).then(function (html) {
      if (!html) return;
      var holder = document.createElement("div");
      holder.innerHTML = html;  // the server's own template, escaped there; no script runs from innerHTML
      var fresh = holder.querySelector("#learner-memory");
      var current = document.getElementById("learner-memory");
      if (!fresh || !current) return;
      current.parentNode.replaceChild(fresh, current);
      fresh.setAttribute("data-updated", "1");
      if (window.quizLocalTime) window.quizLocalTime(fresh);
    }, function () { /* offline: the block stays as it was until the next page load */ });
  }

  new MutationObserver(function (changes) {
    for (var i = 0; i < changes.length; i++) {
      if (changes[i].attributeName === "data-state" && root.getAttribute("data-state") === "graded") {
        refresh();
        return;
      }
    }
  }).observe(root, { attributes: true, attributeFilter: ["data-state"] });
})();
