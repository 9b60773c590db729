/* Mock interview question: counts down the seconds the server said were left for this question.
 *
 * The server started the question's clock when it first showed the page and judges the answer's time when
 * it arrives (quizapp/mock/timing.py); this script only shows the countdown. The visible clock (role=timer,
 * not announced) changes every second; the polite live region speaks at three moments only: half of the
 * time left (for budgets of two minutes or more), one minute left, time up. Strings come from the page
 * in data-i18n (the CSP allows no inline script).
 */
(function () {
  'use strict';

  var box = document.getElementById('mock-timer');
  if (!box) { return; }
  var clockEl = document.getElementById('mock-timer-clock');
  var statusEl = document.getElementById('mock-timer-status');
  var limit = parseInt(box.getAttribute('data-limit'), 10) || 0;
  var left = parseInt(box.getAttribute('data-remaining'), 10);
  if (!clockEl || !statusEl || !limit || isNaN(left) || left <= 0) { return; }
  var S = {};
  try { S = JSON.parse(box.getAttribute('data-i18n') || '{}'); } catch (e) { S = {}; }

  // Elapsed time by this browser's clock only: the display may drift, the verdict on time cannot.
  var end = Date.now() + left * 1000;
  var said = { half: left <= limit / 2 || limit < 120, minute: left <= 60 || limit <= 90 };

  function shown(s) {
    var m = Math.floor(s / 60), r = s % 60;
    return m + ':' + (r < 10 ? '0' : '') + r;
  }

  function say(key) {
    if (S[key]) { statusEl.textContent = S[key]; }
  }

  var timer = null;
  function tick() {
    var s = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    clockEl.textContent = shown(s);
    if (s <= 0) {
      box.classList.add('mock-timer-up');
      say('up');
      clearInterval(timer);
      return;
    }
    if (!said.minute && s <= 60) { said.minute = said.half = true; say('minute'); }
    else if (!said.half && s <= limit / 2) { said.half = true; say('half'); }
  }

  timer = setInterval(tick, 1000);
}());
