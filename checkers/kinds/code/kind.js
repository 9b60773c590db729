/* The code kind in the browser: the editor, Check (the visible cases), the learner's draft, the report.
 *
 * Each code part's widget (partial.html) holds a textarea with the starter. This script
 *   - loads the editor bundle (CodeMirror, /assets/vendor/code-editor.js: built by scripts/setup, served by
 *     the app, no CDN) and mounts it over the textarea, which it keeps in sync; without the bundle the
 *     textarea stays and everything below still works;
 *   - keeps the learner's draft in localStorage under the question and part, restored on reload;
 *   - runs Check: POST /api/v1/questions/<id>/check {variant, part, answer} -> the visible cases, each
 *     passed or failed, and for the first failure its inputs, expected vs got, or the error;
 *   - registers the kind's hooks with the page: collect(fieldset) -> the source text (what Submit sends),
 *     showExpected(pid, value) -> the reference solution as code, showVerdict(fieldset, verdict) -> the
 *     first failing hidden case's diff under the part's verdict.
 * Every server string is inserted with textContent, except authored Markdown (a case's label, a mistake's
 * feedback, which may hold $maths$): shown as text at once, then replaced by the HTML the page's /render
 * endpoint returns (sanitised by the server's allow-list, quizapp/rendering.py), as quiz.js does.
 */
(function () {
  'use strict';

  var DRAFT_PREFIX = 'quiz-code-draft:';
  var editorLoad = null;

  // The page's DOM helpers (QuizKinds.util, quiz.js): one definition for the page and every kind. Looked up
  // at call time, so the order in which the two scripts ran does not matter.
  function util() { return window.QuizKinds.util; }
  function el(tag, cls, text) { return util().el(tag, cls, text); }
  function clear(node) { util().clear(node); }

  function pageConfig() {
    var root = document.getElementById('question');
    try { return JSON.parse((root && root.getAttribute('data-config')) || '{}'); } catch (e) { return {}; }
  }

  function strings(widget) {
    try { return JSON.parse(widget.getAttribute('data-i18n') || '{}'); } catch (e) { return {}; }
  }

  // Authored text -> drawn maths: each node shows its text now; one POST to the page's /render endpoint
  // replaces it with the sanitised HTML (a lone paragraph unwrapped, so it sits inside a line). Without an
  // answer the text stays.
  function renderInto(jobs) {
    var cfg = pageConfig();
    jobs = jobs.filter(function (j) { return j.text && j.text.indexOf('$') >= 0; });
    if (!cfg.render || !jobs.length) { return; }
    var url = cfg.render + (cfg.lang ? '?lang=' + encodeURIComponent(cfg.lang) : '');
    fetch(url, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
      body: JSON.stringify({ items: jobs.map(function (j) { return j.text; }) })
    }).then(function (res) { return res.ok ? res.json() : null; }).then(function (data) {
      var html = data && Array.isArray(data.html) ? data.html : [];
      jobs.forEach(function (j, i) {
        var h = html[i];
        if (typeof h !== 'string') { return; }
        h = h.trim();
        if (h.indexOf('<p>') === 0 && h.lastIndexOf('</p>') === h.length - 4 && h.indexOf('<p>', 3) < 0) {
          h = h.slice(3, -4);
        }
        j.node.innerHTML = h;
      });
    }, function () {});
  }

  function textSpan(cls, text) {
    var span = el('span', cls, text);
    return { node: span, job: { node: span, text: text || '' } };
  }

  function widgetOf(fieldset) { return fieldset && fieldset.querySelector('.code-widget'); }

  function textareaOf(fieldset) { return fieldset && fieldset.querySelector('textarea.answer-code'); }

  // ------------------------------------------------------------------ drafts (localStorage may be off)
  function draftKey(widget) {
    return DRAFT_PREFIX + widget.getAttribute('data-question') + ':' + widget.getAttribute('data-part');
  }

  function readDraft(widget) {
    try { return window.localStorage.getItem(draftKey(widget)); } catch (e) { return null; }
  }

  function writeDraft(widget, text, starter) {
    try {
      if (text === starter) { window.localStorage.removeItem(draftKey(widget)); }
      else { window.localStorage.setItem(draftKey(widget), text); }
      return true;
    } catch (e) { return false; }
  }

  // ------------------------------------------------------------------ the editor bundle
  function loadEditor(src) {
    if (window.QuizEditor) { return Promise.resolve(window.QuizEditor); }
    if (!editorLoad) {
      editorLoad = new Promise(function (resolve) {
        var s = document.createElement('script');
        s.src = src;
        s.onload = function () { resolve(window.QuizEditor || null); };
        s.onerror = function () { resolve(null); };  // not built: the plain textarea stays
        document.head.appendChild(s);
      });
    }
    return editorLoad;
  }

  // ------------------------------------------------------------------ reports
  function fmt(x) {
    if (typeof x !== 'number') { return String(x); }
    return Math.abs(x) >= 1e-4 && Math.abs(x) < 1e6 ? String(Number(x.toPrecision(8))) : x.toExponential(6);
  }

  function comparisonLines(row, S) {
    var out = [];
    [['outputs', ''], ['grads', S.gradient_of + ' ']].forEach(function (pair) {
      var block = row[pair[0]] || {};
      Object.keys(block).forEach(function (name) {
        var c = block[name];
        if (!c || c.match) { return; }
        if (c.reason === 'shape') {
          out.push(pair[1] + name + ': ' + S.shape + ' ' + JSON.stringify(c.shape) + ', ' + S.expected + ' ' +
                   JSON.stringify(c.expected_shape));
        } else if (c.reason) {
          out.push(pair[1] + name + ': ' + c.reason);
        } else {
          var idx = (c.first_mismatch || []).map(function (i) { return '[' + i + ']'; }).join('');
          out.push(pair[1] + name + idx + ': ' + S.expected + ' ' + fmt(c.expected_value) + ', ' + S.got + ' ' +
                   fmt(c.got_value) + ' (' + S.max_abs_err + ' ' + fmt(c.max_abs_err) + ')');
        }
      });
    });
    return out;
  }

  function failureNode(row, S) {
    var box = el('div', 'code-failure');
    var label = row.label && typeof row.label === 'object' ? pickText(row.label, pageConfig().lang) : row.label;
    var head = el('p', 'code-failure-case', S.case + ' ' + row.id + (label ? ' — ' : ''));
    if (label) {
      var lab = textSpan('code-case-label', label);
      head.appendChild(lab.node);
      renderInto([lab.job]);
    }
    box.appendChild(head);
    var diff = el('ul', 'code-diff');
    comparisonLines(row, S).forEach(function (line) { diff.appendChild(el('li', null, line)); });
    box.appendChild(diff);
    if (row.inputs && Object.keys(row.inputs).length) {
      var det = el('details', 'code-inputs');
      det.open = true;
      det.appendChild(el('summary', null, S.inputs));
      var pre = el('pre');
      Object.keys(row.inputs).forEach(function (k) {
        pre.appendChild(document.createTextNode(k + ' = ' + JSON.stringify(row.inputs[k]) + '\n'));
      });
      det.appendChild(pre);
      box.appendChild(det);
    }
    return box;
  }

  function pickText(value, lang) {
    if (value && typeof value === 'object' && !Array.isArray(value)) { return value[lang] || value.en || ''; }
    return value || '';
  }

  function renderCheck(report, verdict, S, lang) {
    clear(report);
    var status = String(verdict.status || 'error');
    report.className = 'code-report verdict verdict-' + status;
    report.setAttribute('data-status', status);
    report.appendChild(el('h3', 'code-report-title', S.examples_title));
    var feedback = textSpan('code-report-text', pickText(verdict.feedback, lang));
    var jobs = [feedback.job];
    report.appendChild(el('p', 'code-report-feedback')).appendChild(feedback.node);
    var details = verdict.details || {};
    var cases = details.cases || [];
    if (cases.length) {
      var ul = el('ul', 'code-cases');
      cases.forEach(function (row) {
        var li = el('li', 'code-case ' + (row.ok ? 'code-case-pass' : 'code-case-fail'));
        li.setAttribute('data-case', row.id);
        li.appendChild(el('span', 'badge badge-' + (row.ok ? 'correct' : 'incorrect'), row.ok ? S.passed : S.failed));
        var label = row.label && typeof row.label === 'object' ? pickText(row.label, lang) : row.label;
        li.appendChild(document.createTextNode(' ' + row.id + (label ? ' — ' : '')));
        if (label) {
          var lab = textSpan('code-case-label', label);
          li.appendChild(lab.node);
          jobs.push(lab.job);
        }
        ul.appendChild(li);
      });
      report.appendChild(ul);
    }
    renderInto(jobs);
    if (details.first_failure) { report.appendChild(failureNode(details.first_failure, S)); }
    report.hidden = false;
  }

  // ------------------------------------------------------------------ one widget
  function setup(fieldset) {
    var widget = widgetOf(fieldset);
    var textarea = textareaOf(fieldset);
    // once per widget: the page calls setup and this script starts itself too (whichever runs first)
    if (!widget || !textarea || widget.getAttribute('data-setup')) { return; }
    widget.setAttribute('data-setup', '1');
    var S = strings(widget);
    var cfg = pageConfig();
    var pid = widget.getAttribute('data-part');
    var starter = textarea.value;
    var note = document.getElementById('code-draft-' + pid);
    var report = document.getElementById('code-report-' + pid);
    var checkBtn = document.getElementById('code-check-' + pid);
    var resetBtn = document.getElementById('code-reset-' + pid);
    var editor = null;

    var draft = readDraft(widget);
    if (draft !== null && draft !== starter) {
      textarea.value = draft;
      if (note) { note.textContent = S.draft_restored || ''; }
    }
    function changed(text) {
      if (writeDraft(widget, text, starter) && note && text !== starter) { note.textContent = S.draft_saved || ''; }
    }
    textarea.addEventListener('input', function () { changed(textarea.value); });

    loadEditor(widget.getAttribute('data-editor-src')).then(function (QuizEditor) {
      if (QuizEditor) {
        var keys = document.getElementById('code-keys-' + pid);
        editor = QuizEditor.mount(textarea, { label: S.editor_label, description: keys ? keys.textContent : '' });
        editor.onChange(changed);
      }
      widget.setAttribute('data-ready', '1');
    });

    if (resetBtn) {
      resetBtn.addEventListener('click', function () {
        if (editor) { editor.setValue(starter); } else { textarea.value = starter; }
        textarea.value = starter;
        writeDraft(widget, starter, starter);
        if (note) { note.textContent = S.reset_done || ''; }
      });
    }

    if (checkBtn && report) {
      checkBtn.addEventListener('click', function () {
        var lang = cfg.lang || 'en';
        var url = (cfg.api || '/api/v1') + '/questions/' + encodeURIComponent(widget.getAttribute('data-question')) +
          '/check?lang=' + encodeURIComponent(lang);
        checkBtn.disabled = true;
        report.hidden = false;
        report.className = 'code-report';
        report.removeAttribute('data-status');
        clear(report);
        report.appendChild(el('p', 'muted', S.checking));
        fetch(url, {
          method: 'POST', credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
          body: JSON.stringify({ variant: cfg.variant || 0, part: pid, answer: textarea.value })
        }).then(function (res) {
          return res.json().then(function (data) { return { ok: res.ok, data: data }; },
                                 function () { return { ok: false, data: null }; });
        }).then(function (r) {
          checkBtn.disabled = false;
          if (r.ok && r.data) { renderCheck(report, r.data, S, lang); return; }
          var err = r.data && r.data.error;
          clear(report);
          report.className = 'code-report verdict verdict-error';
          report.setAttribute('data-status', 'error');
          report.appendChild(el('p', 'code-report-feedback', err ? err.message + (err.field ? ' [' + err.field + ']' : '')
                                                                   : S.network_error));
        }, function () {
          checkBtn.disabled = false;
          clear(report);
          report.appendChild(el('p', 'form-error', S.network_error));
        });
      });
    }
  }

  // ------------------------------------------------------------------ the kind's hooks
  function collect(fieldset) {
    var textarea = textareaOf(fieldset);
    if (!textarea) { return undefined; }
    var text = textarea.value;
    return text.trim() ? text : undefined;
  }

  function showExpected(pid, value) {
    var source = value && typeof value === 'object' ? value.solution : value;
    var pre = el('pre', 'code-solution');
    pre.appendChild(el('code', 'language-python', source || ''));
    return pre;
  }

  function showVerdict(fieldset, verdict) {
    var details = (verdict && verdict.details) || {};
    var box = document.getElementById('verdict-' + fieldset.getAttribute('data-part'));
    var widget = widgetOf(fieldset);
    if (!box || !details.first_failure || !widget) { return; }
    var S = strings(widget);
    var old = box.querySelector('.code-failure');
    if (old) { old.parentNode.removeChild(old); }
    var node = failureNode(details.first_failure, S);
    node.insertBefore(el('h3', 'code-report-title', S.hidden_title), node.firstChild);
    box.appendChild(node);
  }

  var hooks = { collect: collect, showExpected: showExpected, showVerdict: showVerdict, setup: setup };

  var registered = false;
  function register() {  // once, whether the page's registry came before or after this script
    if (!registered && window.QuizKinds && typeof window.QuizKinds.register === 'function') {
      window.QuizKinds.register('code', hooks);
      registered = true;
    }
  }

  function start() {
    register();
    Array.prototype.forEach.call(document.querySelectorAll('fieldset[data-kind="code"]'), setup);
  }

  register();
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', start); } else { start(); }
}());
