/* global document, window, sessionStorage, fetch */
// The id page of the Vesta REST server. No framework: a few fetches to the API beside it, and
// the DOM built with textContent only (nothing from the server is ever parsed as HTML).
'use strict';

(() => {
  const TOKEN_KEY = 'vesta.token';
  /** Vesta's field order, from the lowest bit up, with the key of each width in a layout. */
  const FIELDS = [
    ['machine', 'machineBits'],
    ['seq', 'seqBits'],
    ['time', 'timeBits'],
    ['genMethod', 'genMethodBits'],
    ['type', 'typeBits'],
    ['version', 'versionBits'],
  ];
  const TYPE_NAMES = ['max-peak', 'min-granularity'];
  /** Labels of segments too narrow for the field's whole name. */
  const SHORT = { genMethod: 'gm', type: 't', version: 'v', unused: '-' };

  const $ = (id) => document.getElementById(id);

  /** Creates an element with classes and text (never HTML). */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  /** A refusal of the server (or of the network), with the server's stable code when it gave one. */
  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  /** GETs a route of the API beside this page (relative: works wherever the app is mounted). */
  async function api(path) {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.authorization = `Bearer ${token}`;
    let response;
    try {
      response = await fetch(path, { headers, cache: 'no-store' });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'the server cannot be reached');
    }
    let body;
    try {
      body = await response.json();
    } catch {
      throw new ApiError(response.status, `HTTP_${response.status}`, 'the answer is not JSON');
    }
    if (!response.ok) {
      const error = (body && body.error) || {};
      if (response.status === 401) {
        askForToken(
          token ? 'The server refused the token of this tab.' : 'This server needs a token.',
        );
      }
      throw new ApiError(
        response.status,
        String(error.code || `HTTP_${response.status}`),
        String(error.message || ''),
      );
    }
    return body;
  }

  function showError(node, error) {
    node.replaceChildren();
    if (error instanceof ApiError) {
      node.dataset.code = error.code;
      node.append(el('strong', 'code', error.code), document.createTextNode(` ${error.message}`));
    } else {
      node.dataset.code = 'PAGE_ERROR';
      node.textContent = String(error && error.message ? error.message : error);
    }
    node.hidden = false;
  }

  function hideError(node) {
    node.hidden = true;
    node.replaceChildren();
    delete node.dataset.code;
  }

  // --- the token -------------------------------------------------------------------------

  function askForToken(reason) {
    $('auth').hidden = false;
    $('token-state').hidden = true;
    $('auth-reason').textContent = reason;
  }

  function tokenChanged() {
    const has = sessionStorage.getItem(TOKEN_KEY) !== null;
    $('token-state').hidden = !has;
    if (has) $('auth').hidden = true;
    loadInfo();
  }

  // --- the server's layout ----------------------------------------------------------------

  function widthsText(layout) {
    return FIELDS.filter(([, key]) => layout[key] > 0)
      .map(([name, key]) => `${name} ${layout[key]}`)
      .join(', ');
  }

  async function loadInfo() {
    const node = $('server');
    try {
      const info = await api('info');
      node.classList.remove('error');
      node.textContent =
        `Machine ${info.machine}, genMethod ${info.genMethod}, type ${info.type} (${info.typeName}), ` +
        `epoch ${info.epoch}, time unit ${info.unitMs} ms, expires ${info.expiry}. ` +
        `Layout from bit 0: ${widthsText(info.layout)}.`;
      if (info.auth && sessionStorage.getItem(TOKEN_KEY) !== null) $('token-state').hidden = false;
    } catch (error) {
      node.classList.add('error');
      node.textContent = `The server's layout is unknown (${error.code || 'PAGE_ERROR'}: ${error.message}).`;
    }
  }

  // --- decoding -----------------------------------------------------------------------------

  /** The fields of a decoded id from bit 0 up, with the bits above the layout as "unused". */
  function placeFields(decoded, bits) {
    const placed = [];
    let start = 0;
    for (const [name, key] of FIELDS) {
      const width = decoded.layout[key];
      if (width > 0) placed.push({ name, start, width, value: String(decoded[name]) });
      start += width;
    }
    if (start < 64) {
      const value = BigInt(`0b${bits.slice(0, 64 - start)}`).toString();
      placed.push({ name: 'unused', start, width: 64 - start, value });
    }
    return placed;
  }

  function pad(value, length = 2) {
    return String(value).padStart(length, '0');
  }

  /** A date in this browser's time zone, with its offset and zone name. */
  function localText(date) {
    const offset = -date.getTimezoneOffset();
    const sign = offset < 0 ? '-' : '+';
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return (
      `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
      `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.` +
      `${pad(date.getMilliseconds(), 3)} ` +
      `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)} (${zone})`
    );
  }

  function showDecoded(decoded) {
    // The id stays a string and a BigInt: it never passes through a Number.
    const bits = BigInt(decoded.id).toString(2).padStart(64, '0');
    const fields = placeFields(decoded, bits);
    const fieldOf = (bit) => fields.find((f) => bit >= f.start && bit < f.start + f.width);

    const cells = [];
    for (let bit = 63; bit >= 0; bit--) {
      const field = fieldOf(bit);
      const cell = el('span', `cell f-${field.name}`, bits[63 - bit]);
      cell.title = `bit ${bit}: ${field.name}`;
      cell.dataset.bit = String(bit);
      cells.push(cell);
    }
    $('bits').replaceChildren(...cells);

    const segments = [];
    const rows = [];
    for (const field of [...fields].reverse()) {
      const high = field.start + field.width - 1;
      const segment = el('div', `segment f-${field.name}`);
      segment.dataset.field = field.name;
      // CSSOM, not a style attribute: allowed by the page's Content-Security-Policy.
      segment.style.gridColumn = `${64 - high} / span ${field.width}`;
      segment.title = `${field.name}: bits ${high}-${field.start}, ${field.width} bits, value ${field.value}`;
      const name = field.width >= 6 ? field.name : (SHORT[field.name] ?? field.name);
      segment.append(
        el('span', 'name', name),
        el('span', 'width', `${field.width}b`),
        el('span', 'value', field.value),
      );
      segments.push(segment);

      const row = el('tr');
      row.dataset.field = field.name;
      const swatch = el('td');
      swatch.append(el('span', `swatch f-${field.name}`));
      row.append(
        swatch,
        el('td', 'name', field.name),
        el('td', 'range', field.width === 1 ? `${high}` : `${high}-${field.start}`),
        el('td', 'width', field.width),
        el('td', 'value', field.value),
      );
      rows.push(row);
    }
    $('segments').replaceChildren(...segments);
    $('fields').tBodies[0].replaceChildren(...rows);

    $('decoded-id').textContent = decoded.id;
    $('date-utc').textContent = decoded.date;
    $('date-local').textContent = localText(new Date(decoded.date));
    $('decoded-layout').textContent =
      `type ${decoded.type} (${TYPE_NAMES[decoded.type] ?? 'unknown'}), time unit ` +
      `${decoded.layout.unitMs} ms; from bit 0: ${widthsText(decoded.layout)}`;
    $('decoded').hidden = false;
  }

  /** Only the answer to the latest decode is shown, whatever order the answers come in. */
  let decodes = 0;

  async function decode(raw) {
    const error = $('decode-error');
    const mine = ++decodes;
    hideError(error);
    $('decoded').hidden = true;
    try {
      // Exactly what was pasted: the server decides which forms of an id it reads.
      const decoded = await api(`expid?id=${encodeURIComponent(raw)}`);
      if (mine === decodes) showDecoded(decoded);
    } catch (caught) {
      if (mine === decodes) showError(error, caught);
    }
  }

  // --- issuing ------------------------------------------------------------------------------

  async function issue() {
    const error = $('issue-error');
    hideError(error);
    try {
      const { ids } = await api(`genids?count=${encodeURIComponent($('issue-count').value)}`);
      const items = ids.map((id) => {
        const item = el('li');
        const button = el('button', 'issued-id', id);
        button.type = 'button';
        button.title = 'decode this id';
        button.addEventListener('click', () => {
          $('id-input').value = id;
          void decode(id);
        });
        item.append(button);
        return item;
      });
      $('issued').replaceChildren(...items);
    } catch (caught) {
      showError(error, caught);
    }
  }

  // --- wiring -------------------------------------------------------------------------------

  window.addEventListener('DOMContentLoaded', () => {
    $('auth-form').addEventListener('submit', (event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, $('token').value);
      $('token').value = '';
      tokenChanged();
    });
    $('forget-token').addEventListener('click', () => {
      sessionStorage.removeItem(TOKEN_KEY);
      tokenChanged();
    });
    $('decode-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void decode($('id-input').value);
    });
    $('issue-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void issue();
    });
    tokenChanged();
    document.body.dataset.ready = 'true';
  });
})();
