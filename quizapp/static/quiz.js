/* Question page: live "interpreted as" preview, submission, verdicts and the solution.
 *
 * Plain browser JavaScript, no framework, no download. Loaded as a static file (the page's
 * Content-Security-Policy forbids inline script). Text from the server is inserted with textContent;
 * HTML only ever comes from two places and is never trusted blindly:
 *   - Markdown (feedback, solutions) rendered and sanitised by the server's /render endpoint (nh3);
 *   - MathML from the validate/attempt API, which is rebuilt element by element from an allow-list
 *     (safeMath below), so no script, handler or link can come through.
 *
 * Nothing here knows an answer kind. Each kind's own script (checkers/kinds/<kind>/kind.js, loaded after
 * this one on pages that use the kind) registers its hooks with QuizKinds.register(name, hooks):
 *   collect(fieldset)        -> the part's answer, undefined when unanswered, or QuizKinds.invalid(...)
 *                               when it cannot be sent (default: the trimmed text of #answer-<part>);
 *   preview(raw, box)        -> live preview: null (nothing to show), {answer, source} (ask the server
 *                               what it reads), or {done: true} (the kind showed it itself);
 *   showExpected(pid, value) -> the node showing the expected answer after an attempt;
 *   hideInterpretation       -> the verdict does not repeat the "interpreted as" line;
 *   echoLines                -> a step-by-step verdict shows the typed lines next to each step;
 *   setup(fieldset)          -> once, when the page starts (an editor, buttons of its own);
 *   showVerdict(fs, verdict) -> adds the kind's own detail under the part's verdict.
 * The page config lists the scripts of the kinds it shows (kind_scripts); this script loads them (same
 * origin, so the strict CSP holds) and starts once each has registered.
 */
(function () {
  'use strict';

  var KINDS = {};
  function Invalid(message, summary) { this.message = message; this.summary = summary || message; }
  var QuizKinds = window.QuizKinds = {
    register: function (name, hooks) { KINDS[name] = hooks || {}; },
    invalid: function (message, summary) { return new Invalid(message, summary); },
    // the DOM helpers every kind's script uses, defined once (hoisted from below), there before any root check
    util: { el: el, clear: clear }
  };

  var root = document.getElementById('question');
  if (!root) { return; }
  var cfg = JSON.parse(root.getAttribute('data-config') || '{}');
  // The server chose this variant (a first visit, "New variant"): its address goes into the address bar, so
  // that a reload, a bookmark or a shared link shows the same numbers.
  if (cfg.address && window.history && window.history.replaceState) {
    window.history.replaceState(window.history.state, '', cfg.address + window.location.hash);
  }
  var form = document.getElementById('quiz-form');
  var submitBtn = document.getElementById('submit');
  var formStatus = document.getElementById('form-status');
  var resultsEl = document.getElementById('results');
  var scoreEl = document.getElementById('score');
  var solutionEl = document.getElementById('solution');
  var DEBOUNCE_MS = 300;

  function T(key, vars) {
    var s = (cfg.i18n && cfg.i18n[key]) || key;
    if (vars) {
      Object.keys(vars).forEach(function (k) { s = s.split('{' + k + '}').join(String(vars[k])); });
    }
    return s;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function pickLang(value) {
    // Feedback may come as a string or as {en, zh}.
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value[cfg.lang] || value.en || value.zh || '';
    }
    return value;
  }

  // ------------------------------------------------------------------ safe MathML
  var MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
  var MATH_TAGS = {};
  ('math semantics annotation mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot mover munder ' +
   'munderover mtable mtr mtd mlabeledtr mstyle mpadded mphantom menclose merror mfenced mmultiscripts ' +
   'mprescripts none').split(' ').forEach(function (t) { MATH_TAGS[t] = true; });
  var MATH_ATTRS = {};
  ('display mathvariant stretchy fence separator lspace rspace form largeop movablelimits accent accentunder ' +
   'linethickness columnalign rowalign columnspacing rowspacing columnlines rowlines frame displaystyle ' +
   'scriptlevel notation open close separators width height depth minsize maxsize symmetric columnspan ' +
   'rowspan mathsize voffset').split(' ').forEach(function (a) { MATH_ATTRS[a] = true; });
  var SAFE_VALUE = /^[#A-Za-z0-9.%+\- ]{0,64}$/;

  function cloneMath(src, depth) {
    if (depth > 64) { return null; }
    if (src.nodeType === 3) { return document.createTextNode(src.nodeValue); }
    if (src.nodeType !== 1 || src.namespaceURI !== MATHML_NS || !MATH_TAGS[src.localName]) { return null; }
    var out = document.createElementNS(MATHML_NS, src.localName);
    for (var i = 0; i < src.attributes.length; i++) {
      var a = src.attributes[i];
      if (MATH_ATTRS[a.name] && SAFE_VALUE.test(a.value)) { out.setAttribute(a.name, a.value); }
    }
    for (var c = src.firstChild; c; c = c.nextSibling) {
      var copy = cloneMath(c, depth + 1);
      if (copy) { out.appendChild(copy); }
    }
    return out;
  }

  function parseMath(markup) {
    if (typeof markup !== 'string' || !markup.trim()) { return null; }
    if (markup.indexOf('<math') < 0) {  // a bare fragment (<mrow>...): give it its <math> element
      markup = '<math xmlns="' + MATHML_NS + '">' + markup + '</math>';
    }
    // DOMParser documents are inert: nothing in them runs or loads.
    var doc = new DOMParser().parseFromString('<!doctype html><body>' + markup, 'text/html');
    var maths = doc.body.getElementsByTagNameNS(MATHML_NS, 'math');
    return maths.length ? maths[0] : null;
  }

  function safeMath(markup) {
    var m = parseMath(markup);
    return m ? cloneMath(m, 0) : null;
  }

  function safeMathLines(markup, n) {
    // A derivation's MathML holds one top-level <mrow> per line: one <math> per line when they match up.
    var m = parseMath(markup);
    if (!m) { return null; }
    var kids = Array.prototype.filter.call(m.childNodes, function (c) { return c.nodeType === 1; });
    if (kids.length !== n) { return null; }
    return kids.map(function (k) {
      var math = document.createElementNS(MATHML_NS, 'math');
      var copy = cloneMath(k, 1);
      if (copy) { math.appendChild(copy); }
      return math;
    });
  }

  function spokenOf(value) {
    // a formula's text alternative in the page's language (checkers/mathparse/spoken.py), else its typed text
    var s = value && value.spoken;
    var text = (s && typeof s === 'object') ? (s[cfg.lang] || s.en) : (typeof s === 'string' ? s : '');
    return text || (value && typeof value.text === 'string' ? value.text : '');
  }

  function withSpoken(node, text) {
    // screen readers read the words (not every one reads MathML); the formula is shown and hidden from them
    if (!node || !text) { return node; }
    var wrap = el('span', 'math-spoken');
    wrap.appendChild(el('span', 'sr-only', text));
    node.setAttribute('aria-hidden', 'true');
    wrap.appendChild(node);
    return wrap;
  }

  function mathOrText(interp) {
    var node = interp ? withSpoken(safeMath(interp.mathml), spokenOf(interp)) : null;
    var text = interp && (interp.text || interp.latex);
    if (!node) { return el('code', null, text || ''); }
    if (text && text.indexOf(' = ') > 0 && text.indexOf('\n') < 0) {
      // e.g. "ln(2)/2 = 0.346574": keep what was typed next to the value
      var span = el('span', 'interp');
      span.appendChild(node);
      span.appendChild(el('span', 'interp-text muted', ' (' + text + ')'));
      return span;
    }
    return node;
  }

  // ------------------------------------------------------------------ API
  function withLang(url) {
    return url + (url.indexOf('?') < 0 ? '?' : '&') + 'lang=' + encodeURIComponent(cfg.lang);
  }

  function postJSON(url, body, signal) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
      body: JSON.stringify(body),
      signal: signal
    }).then(function (res) {
      return res.json().then(
        function (data) { return { ok: res.ok, status: res.status, data: data }; },
        function () { return { ok: res.ok, status: res.status, data: null }; });
    });
  }

  function apiUrl(suffix) {
    return withLang(cfg.api + '/questions/' + encodeURIComponent(cfg.qid) + suffix);
  }

  function errorMessage(err) {
    if (!err) { return ''; }
    if (cfg.lang === 'zh' && err.message_zh) { return err.message_zh; }
    return err.message || String(err);
  }

  function renderMarkdown(items) {
    // -> Promise of an array of sanitised HTML strings (or null when the server cannot be reached).
    if (!items.length) { return Promise.resolve([]); }
    return postJSON(cfg.render, { items: items }).then(function (r) {
      return (r.ok && r.data && Array.isArray(r.data.html)) ? r.data.html : null;
    }, function () { return null; });
  }

  function setRendered(node, html, fallbackText) {
    // html was sanitised by the server (nh3 allow-list); without it, plain text.
    if (typeof html === 'string') { node.innerHTML = html; } else { node.textContent = fallbackText || ''; }
  }

  // ------------------------------------------------------------------ answers
  function hooksOf(fs) { return KINDS[fs.getAttribute('data-kind')] || {}; }

  function answerOf(fs) {
    var hooks = hooksOf(fs);
    if (hooks.collect) { return hooks.collect(fs); }
    var input = document.getElementById('answer-' + fs.getAttribute('data-part'));
    if (!input) { return undefined; }
    var text = input.value.trim();
    return text ? text : undefined;
  }

  // ------------------------------------------------------------------ unsent answers kept in the tab
  // Typed answers are kept per question and variant in sessionStorage (this tab only, gone when it closes),
  // so that a language or colour switch, which reloads the page at the same variant, keeps them; a submitted
  // attempt clears them. Code parts keep their own drafts (checkers/kinds/code/kind.js).
  var KEEP_KEY = 'quiz-answers:' + cfg.qid + ':' + cfg.variant;

  function keptControls() {
    var fields = form.querySelectorAll('fieldset.part input, fieldset.part textarea, fieldset.part select');
    return Array.prototype.filter.call(fields, function (c) {
      return c.id && !c.classList.contains('answer-code') && !c.closest('.code-widget') &&
        ['button', 'submit', 'reset', 'hidden', 'file'].indexOf(c.type) < 0;
    });
  }

  function keptStore() { try { return window.sessionStorage; } catch (e) { return null; } }

  function saveAnswers() {
    var store = keptStore();
    if (!store) { return; }
    var values = {};
    var any = false;
    keptControls().forEach(function (c) {
      var v = (c.type === 'checkbox' || c.type === 'radio') ? c.checked : c.value;
      if (v !== '' && v !== false) { values[c.id] = v; any = true; }
    });
    try {
      if (any) { store.setItem(KEEP_KEY, JSON.stringify(values)); } else { store.removeItem(KEEP_KEY); }
    } catch (e) { /* storage full or off: the page works without it */ }
  }

  function restoreAnswers() {
    var store = keptStore();
    var raw = null;
    try { raw = store && store.getItem(KEEP_KEY); } catch (e) { raw = null; }
    if (!raw) { return; }
    var values;
    try { values = JSON.parse(raw); } catch (e) { return; }
    if (!values || typeof values !== 'object') { return; }
    keptControls().forEach(function (c) {
      if (!Object.prototype.hasOwnProperty.call(values, c.id)) { return; }
      var v = values[c.id];
      if (c.type === 'checkbox' || c.type === 'radio') { c.checked = v === true; }
      else if (typeof v === 'string') { c.value = v; }
    });
    root.setAttribute('data-restored', '1');
  }

  function forgetAnswers() {
    var store = keptStore();
    try { if (store) { store.removeItem(KEEP_KEY); } } catch (e) { /* nothing kept */ }
  }

  form.addEventListener('input', saveAnswers);
  form.addEventListener('change', saveAnswers);

  // ------------------------------------------------------------------ preview
  function showError(preview, err, source) {
    clear(preview);
    preview.className = 'preview preview-error';
    preview.appendChild(el('div', 'preview-message', errorMessage(err)));
    var col = err && typeof err.column === 'number' ? err.column : null;
    if (Array.isArray(source)) {  // derivation: the error names its line as answer[i]
      var m = /\[(\d+)\]/.exec((err && err.field) || '');
      source = m ? source[Number(m[1])] : null;
    }
    if (col !== null && typeof source === 'string' && source.length < 400) {
      // Mark the offending character (the API's columns count from 0), clamped into the text.
      var idx = Math.max(0, Math.min(source.length, col));
      var pre = el('pre', 'error-source');
      pre.setAttribute('data-column', String(col));
      pre.appendChild(document.createTextNode(source.slice(0, idx)));
      pre.appendChild(el('mark', 'error-at', source.slice(idx, idx + 1) || ' '));
      pre.appendChild(document.createTextNode(source.slice(idx + 1)));
      preview.appendChild(pre);
      preview.appendChild(el('div', 'error-column muted', T('column', { n: col + 1 })));
    }
  }

  function showInterpreted(preview, interp) {
    clear(preview);
    preview.className = 'preview preview-ok';
    preview.appendChild(el('span', 'preview-label', T('interpreted_as') + ': '));
    var box = el('span', 'preview-math');
    box.appendChild(mathOrText(interp));
    preview.appendChild(box);
  }

  function showValidation(preview, res, source) {
    if (!res.data) { showError(preview, { message: T('server_error') + ' (' + res.status + ')' }); return; }
    var d = res.data;
    if (!res.ok) { showError(preview, d.error || { message: T('server_error') }, source); return; }
    if (d.valid) {
      var interp = d.interpreted_as;
      var lines = Array.isArray(source) && interp ? safeMathLines(interp.mathml, source.length) : null;
      if (lines) {
        var said = (interp.spoken && (interp.spoken[cfg.lang] || interp.spoken.en) || '').split('\n');
        lines = lines.map(function (node, i) {
          return said.length === lines.length ? withSpoken(node, said[i]) : node;
        });
        clear(preview);
        preview.className = 'preview preview-ok';
        preview.appendChild(el('div', 'preview-label', T('interpreted_as') + ':'));
        lines.forEach(function (node, i) {
          var row = el('div', 'preview-step');
          row.appendChild(el('span', 'step-no muted', (i + 1) + '. '));
          row.appendChild(node);
          preview.appendChild(row);
        });
      } else if (Array.isArray(interp)) {
        clear(preview);
        preview.className = 'preview preview-ok';
        interp.forEach(function (it, i) {
          var row = el('div', 'preview-step');
          row.appendChild(el('span', 'preview-label', T('step', { n: i + 1 }) + ': '));
          row.appendChild(mathOrText(it));
          preview.appendChild(row);
        });
      } else {
        showInterpreted(preview, interp);
      }
      if (d.warning) {  // readable but likely too coarse (numeric: fewer significant figures than asked)
        preview.classList.add('preview-warning');
        preview.appendChild(el('div', 'preview-warn', String(d.warning)));
      }
    } else {
      showError(preview, d.error || {}, source);
    }
  }

  function attachPreview(fs) {
    var hooks = hooksOf(fs);
    if (!hooks.preview) { return; }
    var pid = fs.getAttribute('data-part');
    var input = document.getElementById('answer-' + pid);
    var preview = document.getElementById('preview-' + pid);
    if (!input || !preview) { return; }
    var timer = null;
    var seq = 0;
    var controller = null;

    function run() {
      var mySeq = ++seq;
      if (controller) { controller.abort(); }
      var ask = hooks.preview(input.value, preview);
      if (!ask) { clear(preview); preview.className = 'preview'; return; }
      if (ask.done) { return; }  // the kind showed its preview itself
      var answer = ask.answer;
      var source = ask.source;
      preview.classList.add('preview-pending');
      preview.setAttribute('data-state', 'pending');
      controller = (typeof AbortController !== 'undefined') ? new AbortController() : null;
      postJSON(apiUrl('/validate'), { variant: cfg.variant, part: pid, answer: answer },
               controller ? controller.signal : undefined)
        .then(function (res) {
          if (mySeq !== seq) { return; }
          showValidation(preview, res, source);
          preview.setAttribute('data-state', 'done');
        }, function (err) {
          if (mySeq !== seq || (err && err.name === 'AbortError')) { return; }
          showError(preview, { message: T('network_error') });
          preview.setAttribute('data-state', 'done');
        });
    }

    input.addEventListener('input', function () {
      if (timer) { clearTimeout(timer); }
      timer = setTimeout(run, DEBOUNCE_MS);
    });
    if (input.value) { run(); }
  }

  // ------------------------------------------------------------------ results
  // A derivation step that does not follow is 'error' too, with its own wording.
  var STEP_KEYS = { ok: 'step_ok', error: 'step_error' };
  var STATUS_KEYS = {
    correct: 'status_correct', incorrect: 'status_incorrect', invalid: 'status_invalid',
    undecided: 'status_undecided', partial: 'status_partial', ungraded: 'status_ungraded',
    unanswered: 'status_unanswered', self_assessed: 'status_ungraded', ok: 'step_ok', error: 'status_error'
  };

  function fmt(x) {
    if (typeof x !== 'number') { return String(x); }
    return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6)));
  }

  function expectedNode(value) {
    if (typeof value === 'number') { return el('code', null, fmt(value)); }
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      var m = withSpoken(safeMath(value.mathml), spokenOf(value));
      if (m) { return m; }
      if (Array.isArray(value.reference)) { return expectedNode(value.reference); }
      var text = value.text || value.latex || value.value;
      if (text !== undefined) { return expectedNode(text); }
      return el('code', null, JSON.stringify(value));
    }
    if (Array.isArray(value) && value.length && value.every(function (v) { return typeof v === 'string'; })) {
      var ol = el('ol', 'expected-lines');
      value.forEach(function (v) { ol.appendChild(el('li')).appendChild(el('code', null, v)); });
      return ol;
    }
    return el('code', null, typeof value === 'string' ? value : JSON.stringify(roundDeep(value)));
  }

  function roundDeep(v) {
    if (typeof v === 'number') { return Number.isInteger(v) ? v : Number(v.toPrecision(6)); }
    return Array.isArray(v) ? v.map(roundDeep) : v;
  }

  // ------------------------------------------------------------------ solution (shown when the policy allows)
  function fillSolution(sol, queue) {
    clear(solutionEl);
    solutionEl.appendChild(el('h2', null, T('solution')));
    function list(title, items, cls) {
      items = (items || []).map(pickLang).filter(Boolean);
      if (!items.length) { return; }
      solutionEl.appendChild(el('h3', null, title));
      var ul = el('ul', cls);
      items.forEach(function (it) { var li = el('li'); ul.appendChild(li); queue(it, li); });
      solutionEl.appendChild(ul);
    }
    list(T('key_points'), sol.key_points, 'key-points');
    list(T('pitfalls'), sol.pitfalls, 'pitfalls');
    var worked = pickLang(sol.worked);
    if (worked) {
      solutionEl.appendChild(el('h3', null, T('worked')));
      var w = el('div', 'worked');
      solutionEl.appendChild(w);
      queue(worked, w);
    }
    var expected = sol.expected || {};
    var ids = Object.keys(expected);
    if (ids.length) {
      solutionEl.appendChild(el('h3', null, T('expected')));
      var dl = el('dl', 'expected');
      ids.forEach(function (pid) {
        var fsx = document.getElementById('part-' + pid);
        var legend = fsx && fsx.querySelector('legend');
        dl.appendChild(el('dt', null, legend ? legend.textContent : T('part') + ' ' + pid));
        var dd = el('dd');
        var val = expected[pid];
        var shown = fsx ? hooksOf(fsx) : {};
        if (shown.showExpected) {
          dd.appendChild(shown.showExpected(pid, val));
        } else {
          dd.appendChild(expectedNode(val));
        }
        dl.appendChild(dd);
      });
      solutionEl.appendChild(dl);
    }
    solutionEl.hidden = false;
  }

  function showResults(data) {
    var parts = data.parts || {};
    var mdItems = [];
    var mdTargets = [];
    function queue(text, node) {
      if (text === undefined || text === null || text === '') { return; }
      mdItems.push(String(text));
      mdTargets.push(node);
      node.textContent = String(text);  // visible at once; replaced by rendered HTML
    }

    scoreEl.textContent = fmt(data.score) + ' / ' + fmt(data.max_score);
    resultsEl.hidden = false;

    Array.prototype.forEach.call(form.querySelectorAll('fieldset.part'), function (fs) {
      var pid = fs.getAttribute('data-part');
      var box = document.getElementById('verdict-' + pid);
      var v = parts[pid];
      clear(box);
      fs.classList.remove('is-correct', 'is-incorrect', 'is-invalid', 'is-undecided', 'is-partial');
      if (!v) { box.hidden = true; return; }
      var status = String(v.status || 'undecided');
      var label = v.note === 'unanswered' ? T('status_unanswered')
        : v.note === 'self_assessed' ? T('status_ungraded') : T(STATUS_KEYS[status] || status);
      fs.classList.add('is-' + status);
      box.className = 'verdict verdict-' + status;
      var head = el('div', 'verdict-head');
      head.appendChild(el('span', 'badge badge-' + status, label));
      if (typeof v.score === 'number' && v.max_score !== 0) {  // a part worth nothing shows no 0 / 0
        head.appendChild(el('span', 'verdict-score', fmt(v.score) + (typeof v.max_score === 'number' ? ' / ' + fmt(v.max_score) : '')));
      }
      box.appendChild(head);
      // Some kinds already show what was read (lines step by step, ticked boxes).
      var hooks = hooksOf(fs);
      if (v.interpreted_as && v.interpreted_as.mathml && !hooks.hideInterpretation) {
        var ia = el('div', 'verdict-interp');
        ia.appendChild(el('span', 'preview-label', T('interpreted_as') + ': '));
        ia.appendChild(mathOrText(v.interpreted_as));
        box.appendChild(ia);
      }
      var fb = pickLang(v.feedback);
      if (fb) { var fbNode = el('div', 'feedback prose'); box.appendChild(fbNode); queue(fb, fbNode); }
      var details = v.details || v;
      if (Array.isArray(details.steps) && details.steps.length) {
        var ol = el('ol', 'steps');
        var typed = hooks.echoLines ? (answerOf(fs) || []) : [];
        details.steps.forEach(function (st, i) {
          var li = el('li', 'step step-' + (st.status || ''));
          if (typed[i]) { li.appendChild(el('code', 'step-line', typed[i])); li.appendChild(document.createTextNode(' ')); }
          li.appendChild(el('span', 'badge badge-' + (st.status || ''), T(STEP_KEYS[st.status] || STATUS_KEYS[st.status] || st.status || '')));
          var sfb = pickLang(st.feedback);
          if (sfb) { var sn = el('span', 'step-feedback'); li.appendChild(sn); queue(sfb, sn); }
          ol.appendChild(li);
        });
        box.appendChild(ol);
      }
      if (typeof details.first_error === 'number') {
        box.appendChild(el('p', 'first-error', T('first_error', { n: details.first_error + 1 })));
      }
      if (hooks.showVerdict) { hooks.showVerdict(fs, v); }
      box.hidden = false;
    });

    if (data.solution) {
      fillSolution(data.solution, queue);
    } else {  // the attempt policy holds it back: no solution before a correct answer or the last try
      clear(solutionEl);
      solutionEl.hidden = true;
    }
    showPractice(data.practice);

    return renderMarkdown(mdItems).then(function (html) {
      mdTargets.forEach(function (node, i) { setRendered(node, html ? html[i] : null, mdItems[i]); });
      root.setAttribute('data-state', 'graded');
    });
  }

  // ------------------------------------------------------------------ submit
  var graded = false;  // a verdict is shown: the button reads "Try again"

  function clearVerdicts() {
    // "Try again": the verdicts go, the answers stay for editing
    Array.prototype.forEach.call(form.querySelectorAll('fieldset.part'), function (fs) {
      fs.classList.remove('is-correct', 'is-incorrect', 'is-invalid', 'is-undecided', 'is-partial');
      var box = document.getElementById('verdict-' + fs.getAttribute('data-part'));
      if (box) { clear(box); box.hidden = true; }
    });
    resultsEl.hidden = true;
    graded = false;
    root.setAttribute('data-state', 'editing');
    submitBtn.textContent = T('submit');
    formStatus.className = 'form-status';
    formStatus.textContent = T('edit_answer');
    var first = form.querySelector('.answer');
    if (first) { first.focus(); }
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    if (graded) { clearVerdicts(); return; }
    var answers = {};
    var bad = null;
    Array.prototype.forEach.call(form.querySelectorAll('fieldset.part'), function (fs) {
      var a = answerOf(fs);
      if (a instanceof Invalid) {
        bad = bad || { fs: fs, err: a };
        return;
      }
      if (a !== undefined) { answers[fs.getAttribute('data-part')] = a; }
    });
    if (bad) {  // an answer that cannot be sent: say so at the part instead of sending it
      var bp = bad.fs.getAttribute('data-part');
      var box = document.getElementById('preview-' + bp);
      if (box) { showError(box, { message: bad.err.message }); }
      formStatus.className = 'form-status form-error';
      formStatus.textContent = T('part') + ' ' + bp + ': ' + bad.err.summary;
      var field = document.getElementById('answer-' + bp);
      if (field) { field.focus(); }
      return;
    }
    submitBtn.disabled = true;
    formStatus.textContent = T('submitting');
    formStatus.className = 'form-status';
    postJSON(apiUrl('/attempts'), { variant: cfg.variant, answers: answers }).then(function (res) {
      submitBtn.disabled = false;
      if (res.status === 201 && res.data) {
        forgetAnswers();  // recorded: nothing unsent to keep
        formStatus.textContent = '';
        graded = true;
        submitBtn.textContent = T('try_again');
        return showResults(res.data).then(function () {
          resultsEl.scrollIntoView({ behavior: 'smooth', block: 'start' });
        });
      }
      var err = res.data && res.data.error;
      formStatus.className = 'form-status form-error';
      formStatus.textContent = T('server_error') + ': ' + (err ? errorMessage(err) : res.status) +
        (err && err.field ? ' [' + err.field + ']' : '');
    }, function () {
      submitBtn.disabled = false;
      formStatus.className = 'form-status form-error';
      formStatus.textContent = T('network_error');
    });
  });

  // ------------------------------------------------------------------ attempt policy and hints
  var triesEl = document.getElementById('tries');
  var showSolutionBtn = document.getElementById('show-solution');
  var REASONS = { correct: 'solution_after_correct', tries: 'solution_after_tries', requested: 'solution_requested' };

  function showPractice(p) {
    if (!p || !triesEl) { return; }
    root.setAttribute('data-solution', p.solution_available ? p.solution_reason : 'hidden');
    if (p.solution_available) {
      triesEl.textContent = T(REASONS[p.solution_reason] || 'solution');
      if (showSolutionBtn) { showSolutionBtn.hidden = true; closeConfirm(false); }
    } else if (p.tries_used > 0) {
      triesEl.textContent = T('tries_left', { n: p.tries_left }) +
        (form.querySelector('.hint-btn:not([disabled])') ? ' ' + T('tries_left_hint') : '');
    }
  }

  function standaloneSolution(sol) {
    var items = [];
    var targets = [];
    fillSolution(sol, function (text, node) {
      if (text === undefined || text === null || text === '') { return; }
      items.push(String(text)); targets.push(node); node.textContent = String(text);
    });
    return renderMarkdown(items).then(function (html) {
      targets.forEach(function (node, i) { setRendered(node, html ? html[i] : null, items[i]); });
    });
  }

  function addHint(pid, text, shown, total) {
    var list = document.getElementById('hint-list-' + pid);
    var btn = document.getElementById('hint-btn-' + pid);
    if (!list) { return Promise.resolve(); }
    var li = el('li', 'hint prose', text);
    list.appendChild(li);
    if (btn) {
      btn.textContent = shown >= total ? T('no_more_hints') : T('next_hint');
      btn.disabled = shown >= total;
    }
    return renderMarkdown([text]).then(function (html) { setRendered(li, html ? html[0] : null, text); });
  }

  function creditNote(pid, shown) {
    var note = document.getElementById('hint-note-' + pid);
    if (note && shown > 0) { note.textContent = T('hint_credit', { n: Math.round(100 * Math.max(0.4, 1 - 0.2 * shown)) + '%' }); }
  }

  Array.prototype.forEach.call(form.querySelectorAll('.hint-btn'), function (btn) {
    btn.addEventListener('click', function () {
      var pid = btn.getAttribute('data-part');
      btn.disabled = true;
      postJSON(withLang(cfg.api + '/questions/' + encodeURIComponent(cfg.qid) + '/hints'),
               { variant: cfg.variant, part: pid }).then(function (res) {
        btn.disabled = false;
        if (res.status === 201 && res.data) {
          addHint(pid, res.data.hint, res.data.index + 1, res.data.hints_total);
          creditNote(pid, res.data.index + 1);
        } else if (res.status === 409) {
          btn.textContent = T('no_more_hints'); btn.disabled = true;
        }
      }, function () { btn.disabled = false; formStatus.textContent = T('network_error'); });
    });
  });

  // "Show solution" asks first (it is recorded and brings the question back for review): the button opens
  // a small confirmation under it, whose "Yes, show it" takes the focus; "Cancel" or Escape closes it.
  var confirmBox = document.getElementById('solution-confirm');
  var confirmYes = document.getElementById('solution-confirm-yes');
  var confirmNo = document.getElementById('solution-confirm-no');

  function closeConfirm(refocus) {
    if (!confirmBox || confirmBox.hidden) { return; }
    confirmBox.hidden = true;
    if (showSolutionBtn) { showSolutionBtn.setAttribute('aria-expanded', 'false'); }
    if (refocus && showSolutionBtn && !showSolutionBtn.hidden) { showSolutionBtn.focus(); }
  }

  if (showSolutionBtn && confirmBox && confirmYes) {
    showSolutionBtn.setAttribute('aria-expanded', 'false');
    showSolutionBtn.setAttribute('aria-controls', 'solution-confirm');
    showSolutionBtn.addEventListener('click', function () {
      confirmBox.hidden = false;
      showSolutionBtn.setAttribute('aria-expanded', 'true');
      confirmYes.focus();
    });
    if (confirmNo) { confirmNo.addEventListener('click', function () { closeConfirm(true); }); }
    confirmBox.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') { ev.preventDefault(); closeConfirm(true); }
    });
  }

  var solutionTrigger = confirmYes || showSolutionBtn;
  if (showSolutionBtn && solutionTrigger) {
    solutionTrigger.addEventListener('click', function () {
      closeConfirm(false);
      showSolutionBtn.disabled = true;
      postJSON(withLang(cfg.api + '/questions/' + encodeURIComponent(cfg.qid) + '/solution'),
               { variant: cfg.variant }).then(function (res) {
        showSolutionBtn.disabled = false;
        if (res.status === 201 && res.data && res.data.solution) {
          showPractice(res.data.practice);
          standaloneSolution(res.data.solution).then(function () {
            solutionEl.scrollIntoView({ behavior: 'smooth', block: 'start' });
          });
        }
      }, function () { showSolutionBtn.disabled = false; formStatus.textContent = T('network_error'); });
    });
  }

  function restorePractice() {
    // back on a variant already worked on: the hints shown and, when allowed, the solution
    var url = withLang(cfg.api + '/questions/' + encodeURIComponent(cfg.qid) + '/practice') +
      '&variant=' + encodeURIComponent(cfg.variant);
    return fetch(url, { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        var jobs = [];
        Object.keys(data.hints || {}).forEach(function (pid) {
          var box = document.getElementById('hints-' + pid);
          var total = box ? Number(box.getAttribute('data-total')) : 0;
          data.hints[pid].forEach(function (text, i) { jobs.push(addHint(pid, text, i + 1, total)); });
          creditNote(pid, data.hints[pid].length);
        });
        showPractice(data.practice);
        if (data.solution) { jobs.push(standaloneSolution(data.solution)); }
        return Promise.all(jobs);
      }, function () { /* the page works without it */ });
  }

  var cheatLink = document.querySelectorAll('.cheat-link');
  Array.prototype.forEach.call(cheatLink, function (a) {
    a.addEventListener('click', function () {
      var sheet = document.getElementById('cheat-sheet');
      if (sheet) { sheet.open = true; }
    });
  });

  QuizKinds.util = { T: T, el: el, clear: clear, showError: showError, roundDeep: roundDeep };

  function loadScripts(urls, done) {
    var left = urls.length;
    if (!left) { done(); return; }
    urls.forEach(function (url) {
      var s = document.createElement('script');
      s.src = url;
      s.async = false;  // in order
      s.onload = s.onerror = function () { left -= 1; if (left === 0) { done(); } };
      document.head.appendChild(s);
    });
  }

  // a block of the page may name scripts of its own (learner/_memory_section.html: local times, and the
  // previous attempts brought up to date after each answer); the page itself carries this one script
  var memoryBlock = document.getElementById('learner-memory');
  if (memoryBlock && memoryBlock.getAttribute('data-scripts')) {
    loadScripts(memoryBlock.getAttribute('data-scripts').split(' ').filter(Boolean), function () {});
  }

  loadScripts(Array.isArray(cfg.page_scripts) ? cfg.page_scripts : [], function () {});

  restoreAnswers();  // before the kinds start and the previews run on what is in the fields
  loadScripts(Array.isArray(cfg.kind_scripts) ? cfg.kind_scripts : [], function () {
    Array.prototype.forEach.call(form.querySelectorAll('fieldset.part'), function (fs) {
      var hooks = hooksOf(fs);
      if (hooks.setup) { hooks.setup(fs); }
      attachPreview(fs);
    });
    restorePractice().then(function () { root.setAttribute('data-ready', '1'); },
                           function () { root.setAttribute('data-ready', '1'); });
  });
}());
