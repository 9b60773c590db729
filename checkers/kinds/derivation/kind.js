/* derivation: one step per line (blank lines dropped); previewed line by line, verdict step by step. */
(function () {
  'use strict';
  function stepLines(text) {
    return text.split(/\n/).map(function (s) { return s.trim(); }).filter(Boolean);
  }
  window.QuizKinds.register('derivation', {
    collect: function (fs) {
      var input = document.getElementById('answer-' + fs.getAttribute('data-part'));
      if (!input) { return undefined; }
      var lines = stepLines(input.value);
      return lines.length ? lines : undefined;
    },
    preview: function (raw) {
      var lines = stepLines(raw);
      return lines.length ? { answer: lines, source: lines } : null;
    },
    hideInterpretation: true,  // the lines are shown step by step
    echoLines: true
  });
}());
