// The small part of XML that an E57 file's XML section uses: elements with attributes, text and CDATA,
// comments, the <?xml?> declaration, and the five named entities plus numeric character references. No
// DTDs, no namespaces resolved (a prefixed name stays as written). Errors name the line of the XML section.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's text and CDATA, joined (E57 keeps a value as an element's only content). */
  text: string;
  /** The element's line in the XML section (1-based), for errors. */
  line: number;
}

export class XmlSyntaxError extends Error {
  constructor(readonly line: number, detail: string) {
    super(detail);
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const SPACE = /\s*/y;
const ATTRIBUTE_VALUE = /\s*=\s*("[^"]*"|'[^']*')/y;

function decodeEntities(text: string, line: number): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (match, name: string | undefined) => {
    if (name === undefined) throw new XmlSyntaxError(line, "a bare '&' (write &amp;)");
    if (name.startsWith('#')) {
      const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      if (!(code <= 0x10ffff)) throw new XmlSyntaxError(line, `character reference ${match} is not a Unicode character`);
      return String.fromCodePoint(code);
    }
    const value = ENTITIES[name];
    if (value === undefined) throw new XmlSyntaxError(line, `unknown entity ${match}`);
    return value;
  });
}

/** Parses `source` into its root element. */
export function parseXml(source: string): XmlElement {
  let at = 0, line = 1;
  const advance = (to: number) => {
    for (let i = at; i < to; i++) if (source.charCodeAt(i) === 10) line++;
    at = to;
  };
  const expectEnd = (marker: string, what: string) => {
    const end = source.indexOf(marker, at);
    if (end < 0) throw new XmlSyntaxError(line, `unterminated ${what}`);
    return end;
  };
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (at < source.length) {
    const lt = source.indexOf('<', at);
    const textEnd = lt < 0 ? source.length : lt;
    if (textEnd > at) {
      const text = source.slice(at, textEnd);
      if (stack.length > 0) stack[stack.length - 1].text += decodeEntities(text, line);
      else if (text.trim() !== '') throw new XmlSyntaxError(line, 'text outside the root element');
      advance(textEnd);
    }
    if (lt < 0) break;
    if (source.startsWith('<!--', at)) {
      advance(expectEnd('-->', 'comment') + 3);
    } else if (source.startsWith('<![CDATA[', at)) {
      const end = expectEnd(']]>', 'CDATA section');
      if (stack.length === 0) throw new XmlSyntaxError(line, 'CDATA outside the root element');
      stack[stack.length - 1].text += source.slice(at + 9, end);
      advance(end + 3);
    } else if (source.startsWith('<?', at)) {
      advance(expectEnd('?>', 'processing instruction') + 2);
    } else if (source.startsWith('<!', at)) {
      throw new XmlSyntaxError(line, 'DOCTYPE declarations are not part of E57 XML');
    } else if (source.startsWith('</', at)) {
      NAME.lastIndex = at + 2;
      const match = NAME.exec(source);
      const open = stack.pop();
      if (!match || !open || match[0] !== open.name) {
        throw new XmlSyntaxError(line, `closing tag </${match?.[0] ?? '?'}> does not close ${open ? `<${open.name}> (line ${open.line})` : 'any element'}`);
      }
      advance(expectEnd('>', 'closing tag') + 1);
    } else {
      const element = openTag(source, at + 1, line);
      if (stack.length > 0) stack[stack.length - 1].children.push(element.element);
      else if (root) throw new XmlSyntaxError(line, 'a second root element');
      else root = element.element;
      if (!element.selfClosing) stack.push(element.element);
      advance(element.end);
    }
  }
  if (stack.length > 0) throw new XmlSyntaxError(line, `<${stack[stack.length - 1].name}> (line ${stack[stack.length - 1].line}) is never closed`);
  if (!root) throw new XmlSyntaxError(line, 'no root element');
  return root;
}

/** An opening tag starting after its '<' at `from`: the element, where the tag ends, and whether it closes itself. */
function openTag(source: string, from: number, line: number): { element: XmlElement; end: number; selfClosing: boolean } {
  NAME.lastIndex = from;
  const name = NAME.exec(source);
  if (!name) throw new XmlSyntaxError(line, `'<' not followed by an element name`);
  const element: XmlElement = { name: name[0], attributes: {}, children: [], text: '', line };
  let at = from + name[0].length;
  for (;;) {
    SPACE.lastIndex = at;
    SPACE.exec(source);
    at = SPACE.lastIndex;
    if (source.startsWith('/>', at)) return { element, end: at + 2, selfClosing: true };
    if (source[at] === '>') return { element, end: at + 1, selfClosing: false };
    NAME.lastIndex = at;
    const attribute = NAME.exec(source);
    if (!attribute) throw new XmlSyntaxError(line, `malformed tag <${element.name}>`);
    at += attribute[0].length;
    ATTRIBUTE_VALUE.lastIndex = at;
    const value = ATTRIBUTE_VALUE.exec(source);
    if (!value) throw new XmlSyntaxError(line, `attribute ${attribute[0]} of <${element.name}> has no quoted value`);
    element.attributes[attribute[0]] = decodeEntities(value[1].slice(1, -1), line);
    at += value[0].length;
  }
}

/** The child named `name`, or undefined. */
export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c) => c.name === name);
}
