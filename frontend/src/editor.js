// The code editor of the quiz pages: CodeMirror 6 with Python highlighting, 4-space indentation and line
// numbers, bundled into one file (quizapp/static/vendor/code-editor.js) and served by the app itself, so
// the strict Content-Security-Policy (script-src 'self', style-src 'self') holds. The editor lives in a
// shadow root: there CodeMirror styles itself through a constructed (adopted) style sheet, which the CSP
// does not govern; in the document itself it would add a <style> element, which style-src 'self' blocks.
//
// window.QuizEditor.mount(textarea, options) replaces a <textarea> by an editor and keeps the textarea's
// value in sync, so a form that reads the textarea keeps working (and the page works without the bundle).
// options: label (the editor's aria-label) and description (its aria-description: an IDREF such as
// aria-describedby cannot reach out of a shadow root, so the keyboard hint's text is passed in).
//
// Keyboard: Tab indents and Shift-Tab dedents (indentWithTab); pressing Escape first makes the next Tab
// move focus out of the editor (CodeMirror's tab-focus mode), so the editor is never a keyboard trap.
//
// The bundle loads after the page, so a learner may already be typing in the plain textarea when the
// editor replaces it: the focus and the caret (or selection) then move into the editor. Left on the
// hidden textarea, the focus fell back to the page, and the next Tab went to another control instead of
// indenting.

import { EditorState } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  indentUnit, indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle,
} from "@codemirror/language";
import { python } from "@codemirror/lang-python";

const theme = EditorView.theme({
  "&": { fontSize: "0.92rem", border: "1px solid #b8bcc6", borderRadius: "6px", maxWidth: "100%" },
  "&.cm-focused": { outline: "2px solid #2f6fdf", outlineOffset: "1px" },
  ".cm-scroller": {
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    minHeight: "10rem", maxHeight: "70vh", overflow: "auto", lineHeight: "1.45",
  },
  ".cm-content": { padding: "6px 0" },
  ".cm-gutters": { backgroundColor: "#f4f5f7", borderRight: "1px solid #dde0e6", color: "#6b7280" },
});

// The textarea's selection as a CodeMirror selection (clamped to the text), when it has the focus.
function selectionOf(textarea) {
  if (document.activeElement !== textarea) return null;
  const length = textarea.value.length;
  const clamp = (n) => Math.max(0, Math.min(length, typeof n === "number" ? n : length));
  const [from, to] = [clamp(textarea.selectionStart), clamp(textarea.selectionEnd)];
  return textarea.selectionDirection === "backward" ? { anchor: to, head: from } : { anchor: from, head: to };
}

function mount(textarea, options = {}) {
  const selection = selectionOf(textarea);
  const attrs = { "aria-multiline": "true" };
  if (options.label) attrs["aria-label"] = options.label;
  if (options.description) attrs["aria-description"] = options.description;
  const listeners = [];
  const host = document.createElement("div");
  host.className = "code-editor-host";
  const shadow = host.attachShadow({ mode: "open" });
  const view = new EditorView({
    root: shadow,
    parent: shadow,
    state: EditorState.create({
      doc: textarea.value,
      selection: selection || undefined,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(), history(),
        indentOnInput(), bracketMatching(), indentUnit.of("    "), EditorState.tabSize.of(4),
        python(), syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of(attrs), theme,
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          textarea.value = update.state.doc.toString();
          for (const fn of listeners) fn(textarea.value);
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.insertAdjacentElement("afterend", host);
  view.dom.classList.add("code-editor");
  textarea.quizEditor = view;
  if (selection) view.focus();  // the learner was typing in the textarea: carry on in the editor
  return {
    view,
    host,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
    onChange(fn) { listeners.push(fn); },
  };
}

window.QuizEditor = { mount };
