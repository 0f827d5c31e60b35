const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '{': '&#123;',
  '}': '&#125;',
};

/**
 * Text made safe inside HTML content and inside a quoted attribute (either quote): the markup characters and
 * quotes as entities, and the braces too — the client replaces the first `{{shadowRootId}}` of the page, which
 * must be the service's own placeholder, never one a component name or a host brought in. A browser decodes
 * the entities back, so a URL or a script in an attribute reads exactly the text escaped.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'{}]/g, (c) => ENTITIES[c]);
}

/**
 * A JavaScript string literal for an HTML attribute: the JSON string with its content escaped, its delimiting
 * quotes kept (so a plain name reads as LangGraph Platform writes it: `render("card", …)`).
 */
export function jsStringInAttribute(text: string): string {
  return `"${escapeHtml(JSON.stringify(text).slice(1, -1))}"`;
}
