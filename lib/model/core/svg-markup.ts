/*
 * Just enough XML writing for standalone SVG documents: every piece of text and every attribute
 * value goes through `escapeXml`, so a holder named `<b>&"x'` cannot break the document.
 */

type AttrValue = string | number | undefined;
export type Attrs = Record<string, AttrValue>;

/** Characters XML 1.0 does not allow at all (most control characters, lone surrogates): dropped. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** Coordinates to one decimal: small files, and the same string for the same drawing. */
const num = (n: number): string => String(Math.round(n * 10) / 10);

/** An element; `children` are markup already (use `escapeXml` or `textNode` for text). */
export function el(name: string, attrs: Attrs, ...children: string[]): string {
  const attributes = Object.entries(attrs)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${typeof value === 'number' ? num(value) : escapeXml(value)}"`)
    .join('');
  return children.length === 0 ? `<${name}${attributes}/>` : `<${name}${attributes}>${children.join('')}</${name}>`;
}

/** A <text> element with its content escaped. */
export const textNode = (attrs: Attrs, content: string): string => el('text', attrs, escapeXml(content));

/** A <title> child: what a viewer shows on hover, and what a screen reader reads for the mark. */
export const titleNode = (content: string): string => el('title', {}, escapeXml(content));
