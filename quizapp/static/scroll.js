/* Boxes that scroll sideways (a wide display formula, table or code block; quiz.css draws their scroll cue)
 * can be reached with the keyboard: while one is wider than its box it takes tabindex=0, so Tab stops on it
 * and the arrow keys scroll it (WCAG 2.1.1; axe's scrollable-region-focusable). A box that fits again
 * loses the tab stop it was given. Runs on load, on resize and when the page adds content (a solution, a
 * verdict); no inline script (the CSP allows none).
 */
(function () {
  'use strict';

  var SELECTOR = '.scroll-x, pre, .prose table, .math.block, .math.display, .learner-table, .author-table, .table-scroll';
  var MARK = 'data-scroll-stop';
  var queued = false;

  function update() {
    queued = false;
    var boxes = document.querySelectorAll(SELECTOR);
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      var wide = box.scrollWidth > box.clientWidth + 1;
      if (wide && !box.hasAttribute('tabindex')) {
        box.setAttribute('tabindex', '0');
        box.setAttribute(MARK, '1');
      } else if (!wide && box.hasAttribute(MARK)) {
        box.removeAttribute('tabindex');
        box.removeAttribute(MARK);
      }
    }
  }

  function later() {
    if (!queued) {
      queued = true;
      window.requestAnimationFrame(update);
    }
  }

  update();
  window.addEventListener('load', update);
  window.addEventListener('resize', later);
  if (window.MutationObserver) {
    new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  }
}());
