/* choice: the ticked option ids; after an attempt the correct options are named by their own text. */
(function () {
  'use strict';
  var QK = window.QuizKinds;
  QK.register('choice', {
    collect: function (fs) {
      var checked = Array.prototype.slice.call(fs.querySelectorAll('input:checked')).map(function (i) { return i.value; });
      if (fs.getAttribute('data-multiple')) { return checked.length ? checked : undefined; }
      return checked.length ? checked[0] : undefined;
    },
    hideInterpretation: true,  // the ticked boxes already show what was read
    // Option ids are internal (the display order is shuffled per variant): show the correct options'
    // own text as drawn (maths included), and mark them in place.
    showExpected: function (pid, value) {
      var el = QK.util.el;
      var ids = Array.isArray(value) ? value : [value];
      var ul = el('ul', 'expected-options');
      ids.forEach(function (id) {
        var input = document.getElementById('answer-' + pid + '-' + id);
        var label = input ? input.closest('label') : null;
        if (label) { label.classList.add('option-correct'); }
        var textEl = label ? label.querySelector('.option-text') : null;
        var li = el('li', null, textEl ? null : String(id));
        // a copy of the option as drawn: its formulas stay MathML, their words stay screen-reader only
        // (textContent would show the sr-only words and the MathML's characters run together)
        if (textEl) {
          Array.prototype.forEach.call(textEl.childNodes, function (n) { li.appendChild(n.cloneNode(true)); });
        }
        ul.appendChild(li);
      });
      return ul;
    }
  });
}());
