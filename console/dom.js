// Building the page without HTML strings: every value from the server becomes a text node or a
// property, never markup, so stored data cannot inject elements or scripts (the CSP forbids inline
// script as a second line of defence).

/**
 * Creates an element. `props` keys: `on<event>` add listeners, `class`, `for` and `aria-*` /
 * `data-*` become attributes, anything else is set as a property. Children are nodes or text.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class' || key === 'for' || key.startsWith('aria-') || key.startsWith('data-') || key === 'role') el.setAttribute(key, String(value));
    else el[key] = value;
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A labelled form control: `<label>text <control></label>`. */
export function field(text, control, cls) {
  return h('label', { class: cls }, text, control);
}

/** A short, one-line text form of any JSON value (table cells). */
export function preview(value) {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value !== 'object') return String(value);
  switch (value.__type) {
    case 'Date': return value.iso;
    case 'Pointer': return `→ ${value.className} ${value.objectId}`;
    case 'GeoPoint': return `(${value.latitude}, ${value.longitude})`;
    case 'File': return `file ${value.name ?? value.objectId ?? ''}`;
    case 'Relation': return `relation → ${value.className}`;
    case 'Bytes': return `bytes (${String(value.base64).length} b64 chars)`;
    default: {
      const text = JSON.stringify(value);
      return text.length > 80 ? `${text.slice(0, 79)}…` : text;
    }
  }
}

/** Parses JSON typed by the operator, with the reason in the error. */
export function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${err.message}`);
  }
}
