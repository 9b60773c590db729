/* numeric: one line; the server reads it live ("interpreted as", and a warning when too coarse). */
(function () {
  'use strict';
  window.QuizKinds.register('numeric', {
    preview: function (raw) {
      var answer = raw.trim();
      return answer ? { answer: answer, source: raw } : null;
    }
  });
}());
