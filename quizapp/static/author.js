/* Author editor: live preview of the YAML for the chosen seed (POST /author/preview with the CSRF header).
   The preview HTML comes from the server, rendered by quizapp.rendering and sanitised by nh3. */
(function () {
  "use strict";
  var textarea = document.getElementById("yaml");
  var target = document.getElementById("preview");
  if (!textarea || !target) { return; }
  var seedInput = document.getElementById("preview-seed");
  var langInput = document.getElementById("preview-lang");
  var errorBox = document.getElementById("preview-error");
  var state = document.getElementById("preview-state");
  var meta = document.querySelector('meta[name="csrf-token"]');
  var url = textarea.getAttribute("data-preview-url");
  function msg(name, fallback) { return textarea.getAttribute("data-msg-" + name) || fallback; }
  var timer = null;
  var seq = 0;

  function refresh() {
    var mine = ++seq;
    var body = JSON.stringify({
      yaml: textarea.value,
      seed: seedInput ? parseInt(seedInput.value || "0", 10) || 0 : 0,
      lang: langInput ? langInput.value : "en"
    });
    fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": meta ? meta.content : ""},
      body: body
    }).then(function (r) { return r.json(); }).then(function (data) {
      if (mine !== seq) { return; }
      if (data && data.ok) {
        target.innerHTML = data.html;
        errorBox.hidden = true;
        errorBox.textContent = "";
      } else {
        errorBox.hidden = false;
        errorBox.textContent = (data && (data.error && (data.error.message || data.error))) || msg("failed", "preview failed");
      }
      if (state) {
        state.setAttribute("data-state", "live");
        state.textContent = msg("live", "seed {n} (live)").replace("{n}", seedInput ? seedInput.value : "0");
      }
    }).catch(function () {
      errorBox.hidden = false;
      errorBox.textContent = msg("unavailable", "preview unavailable");
    });
  }

  function later() {
    if (timer) { clearTimeout(timer); }
    timer = setTimeout(refresh, 350);
  }

  textarea.addEventListener("input", later);
  if (seedInput) { seedInput.addEventListener("input", later); }
  if (langInput) { langInput.addEventListener("change", refresh); }
  refresh();
}());
