/* array: numbers by rows (spaces, commas or semicolons; one row per line) or JSON. Read and previewed
 * here (numbers only, with the shape); the server checks the shape on submit. */
(function () {
  'use strict';
  var QK = window.QuizKinds;

  function parseArray(text) {
    var T = QK.util.T;
    var src = text.trim();
    if (!src) { return { empty: true }; }
    var value;
    if (src.charAt(0) === '[') {
      try { value = JSON.parse(src); } catch (e) { return { error: T('array_bad') }; }
    } else {
      var rows = src.split(/\n+/).map(function (line) {
        return line.trim().replace(/^\[|\]$/g, '').split(/[\s,;]+/).filter(Boolean).map(Number);
      }).filter(function (r) { return r.length; });
      value = rows.length === 1 ? rows[0] : rows;
    }
    function check(v, depth) {
      if (typeof v === 'number') { return isFinite(v); }
      if (!Array.isArray(v) || depth > 4) { return false; }
      return v.every(function (x) { return check(x, depth + 1); });
    }
    if (!check(value, 0) || typeof value === 'number') { return { error: T('array_bad') }; }
    var shape = [value.length];
    if (value.length && Array.isArray(value[0])) {
      var n = value[0].length;
      if (!value.every(function (r) { return Array.isArray(r) && r.length === n; })) {
        return { error: T('array_ragged') };
      }
      shape.push(n);
    } else if (value.some(Array.isArray)) {
      return { error: T('array_ragged') };
    }
    return { value: value, shape: shape };
  }

  function arrayTable(value) {
    var el = QK.util.el;
    var table = el('table', 'array-preview');
    var rows = Array.isArray(value[0]) ? value : [value];
    rows.slice(0, 20).forEach(function (r) {
      var tr = el('tr');
      r.slice(0, 20).forEach(function (x) { tr.appendChild(el('td', null, x)); });
      table.appendChild(tr);
    });
    return table;
  }

  QK.register('array', {
    collect: function (fs) {
      var input = document.getElementById('answer-' + fs.getAttribute('data-part'));
      if (!input) { return undefined; }
      var parsed = parseArray(input.value);
      if (parsed.empty) { return undefined; }
      // an unreadable array is not sent: the page says so at the part
      return parsed.error ? QK.invalid(parsed.error, QK.util.T('array_bad')) : parsed.value;
    },
    preview: function (raw, box) {
      var u = QK.util;
      var parsed = parseArray(raw);
      if (parsed.empty) { return null; }
      if (parsed.error) { u.showError(box, { message: parsed.error }); return { done: true }; }
      u.clear(box);
      box.className = 'preview preview-ok';
      box.appendChild(u.el('span', 'preview-label', u.T('array_shape') + ': ' + parsed.shape.join(' × ')));
      box.appendChild(arrayTable(parsed.value));
      return { done: true };  // checked locally (numbers only); the server checks the shape on submit
    }
  });
}());
