/* symbolic: one line of maths; the server reads it live and shows it as maths ("interpreted as"). */
(function () {
  'use strict';
  window.QuizKinds.register('symbolic', {
    preview: function (raw) {
      var answer = raw.trim();
      return answer ? { answer: answer, source: raw } : null;
    }
  });
}());
