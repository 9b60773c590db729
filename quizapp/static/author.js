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

  // Random seed: another variant of the same question in the preview.
  var randomSeed = document.getElementById("random-seed");
  if (randomSeed && seedInput) {
    randomSeed.addEventListener("click", function () {
      seedInput.value = String(Math.floor(Math.random() * 1000000));
      refresh();
    });
  }

  // Unsaved changes: a marker next to Save and the browser's warning when leaving the page.
  var form = document.getElementById("editor-form");
  var unsaved = document.getElementById("unsaved");
  var original = textarea.value;
  var submitting = false;
  function dirty() { return !submitting && textarea.value !== original; }
  textarea.addEventListener("input", function () { if (unsaved) { unsaved.hidden = !dirty(); } });
  if (form) { form.addEventListener("submit", function () { submitting = true; }); }
  window.addEventListener("beforeunload", function (e) {
    if (!dirty()) { return undefined; }
    e.preventDefault();
    e.returnValue = msg("leave", "You have unsaved changes.");
    return e.returnValue;
  });

  // Keyboard: Ctrl/Cmd+S saves, Ctrl/Cmd+Enter refreshes the preview.
  document.addEventListener("keydown", function (e) {
    if (!(e.ctrlKey || e.metaKey)) { return; }
    if (e.key === "s" || e.key === "S") {
      e.preventDefault();
      if (form) { submitting = true; if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); } }
    } else if (e.key === "Enter") {
      e.preventDefault();
      refresh();
    }
  });

  // An error's "line L, column C" puts the cursor there in the YAML.
  function gotoLine(line, column) {
    var lines = textarea.value.split("\n");
    var pos = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) { pos += lines[i].length + 1; }
    pos += Math.max(0, (column || 1) - 1);
    textarea.focus();
    textarea.setSelectionRange(pos, pos);
    var lineHeight = textarea.scrollHeight / Math.max(lines.length, 1);
    textarea.scrollTop = Math.max(0, (line - 5) * lineHeight);
  }
  Array.prototype.forEach.call(document.querySelectorAll(".goto-line"), function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      gotoLine(parseInt(a.getAttribute("data-line"), 10) || 1, parseInt(a.getAttribute("data-column"), 10) || 1);
    });
  });
  refresh();
}());
