/* Measures one page as it is drawn now, for tests/a11y/test_phone_width_browser.py; defines
 * window.__phoneWidthProblems(), which returns a list of strings, one per problem (empty: the page reads
 * well at this width):
 *   - "page": the page scrolls sideways (documentElement.scrollWidth > innerWidth; in Chromium's phone
 *     emulation innerWidth grows with a too-wide page, so the width compared is also the root's clientWidth,
 *     the screen's width);
 *   - "scrolls": a box scrolls sideways (overflow-x auto/scroll, scrollWidth > clientWidth + 1) and is not a
 *     single formula, table or code block showing the scroll cue of .scroll-x (quiz.css), or it holds
 *     running text (p, li, ...) beside it;
 *   - "keyboard": a box allowed to scroll cannot be reached with the keyboard (static/scroll.js gives it
 *     tabindex=0);
 *   - "clipped": a box that hides its overflow cuts text off;
 *   - "spills": a block of running text is wider than its box (its content runs out of it);
 *   - "word": a word (3 to 30 Latin letters or digits, starting with a letter) is drawn on two lines,
 *     i.e. broken inside the word (its Range has client rectangles on more than one line).
 * Hidden elements, screen-reader text (.sr-only), form fields and the code editor are left out; MathML is
 * never broken inside a token, so its text is not searched for words.
 */
(function () {
  'use strict';
  var CUE = 'scroll-x';
  var TEXT = 'p, li, td, th, dd, dt, label, legend, h1, h2, h3, h4, figcaption, blockquote, summary, caption, ' +
    '.prompt, .prose, .part-prompt, .feedback, .worked, .option, .option-text, .verdict, .solution, .preview, ' +
    '.btn, button, .topnav, .topbar';
  var SKIP = '.sr-only, .cm-editor, textarea, select, input, svg, [hidden], template, noscript';
  var RUNNING = 'p, li, dd, dt, h1, h2, h3, label, blockquote';
  var WORD = /[A-Za-z][A-Za-z0-9]{2,29}/g;

  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) { s += '#' + el.id; }
    if (typeof el.className === 'string' && el.className.trim()) { s += '.' + el.className.trim().split(/\s+/).join('.'); }
    var text = (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return s + ' "' + text + '"';
  }

  function shown(el) {
    if (el.closest(SKIP)) { return false; }
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  }

  /* The scroll cue the class .scroll-x gives (quiz.css): covers that scroll with the content over shadows
     that stay (background-attachment local and scroll, gradients). */
  function hasCue(el) {
    var cs = getComputedStyle(el);
    return cs.backgroundImage.indexOf('gradient') >= 0 && cs.backgroundAttachment.indexOf('local') >= 0 &&
      cs.backgroundAttachment.indexOf('scroll') >= 0;
  }

  /* A box allowed to scroll: it shows the cue and holds one formula, table or code block and no running
     text of its own. */
  function allowedScroller(el) {
    if (!hasCue(el) || el.querySelector(RUNNING)) { return false; }
    if (el.matches('pre, table, math')) { return true; }
    var items = el.querySelectorAll('math, table, pre');
    var outer = Array.prototype.filter.call(items, function (m) {
      var up = m.parentElement && m.parentElement.closest('math, table, pre');
      return !(up && el.contains(up));
    });
    return outer.length === 1;
  }

  window.__phoneWidthProblems = function () {
    var problems = [];
    var de = document.documentElement;
    var width = Math.min(window.innerWidth, de.clientWidth);
    if (de.scrollWidth > width) {
      problems.push('page: scrolls sideways, ' + de.scrollWidth + 'px > ' + width + 'px');
    }
    var all = document.body.querySelectorAll('*');
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.namespaceURI === 'http://www.w3.org/2000/svg') { continue; }
      var over = el.scrollWidth - el.clientWidth;
      if (over <= 1 || !shown(el)) { continue; }
      var cs = getComputedStyle(el);
      if (cs.display === 'inline' || cs.display === 'contents') { continue; }  // no box of their own
      if (el.namespaceURI === 'http://www.w3.org/1998/Math/MathML' && el.tagName.toLowerCase() !== 'math') { continue; }
      if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') {
        if (!allowedScroller(el)) {
          problems.push('scrolls: ' + describe(el) + ' by ' + over + 'px');
        } else if (el.tabIndex < 0 && !el.querySelector('a[href], button, input, select, textarea, [tabindex]')) {
          problems.push('keyboard: ' + describe(el) + ' scrolls but takes no focus');
        }
      } else if (cs.overflowX === 'hidden' || cs.overflowX === 'clip') {
        if ((el.textContent || '').trim()) { problems.push('clipped: ' + describe(el) + ' by ' + over + 'px'); }
      } else if (el.matches(TEXT)) {
        problems.push('spills: ' + describe(el) + ' by ' + over + 'px');
      }
    }
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    var range = document.createRange();
    var node;
    var seen = 0;
    while ((node = walker.nextNode())) {
      var parent = node.parentElement;
      if (!parent || parent.closest('math, pre') || !shown(parent)) { continue; }
      var text = node.nodeValue;
      var m;
      WORD.lastIndex = 0;
      while ((m = WORD.exec(text))) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        var tops = {};
        var lines = 0;
        var rects = range.getClientRects();
        for (var k = 0; k < rects.length; k++) {
          if (rects[k].width < 0.5) { continue; }
          var top = Math.round(rects[k].top);
          if (!tops[top]) { tops[top] = true; lines++; }
        }
        if (lines > 1 && seen < 40) {
          seen++;
          problems.push('word: "' + m[0] + '" broken over ' + lines + ' lines in ' + describe(parent));
        }
      }
    }
    return problems;
  };
}());
