import { VESTA_FIELD_ORDER } from '@vesta/core/kit';
import { PROTOCOL_VERSION } from '../protocol/protocolConstants.js';
import type { Welcome } from '../protocol/WelcomeMessage.js';

/**
 * The welcome of a client's protocol version: protocol 4 as it is, protocol 3 and 2 the same
 * bytes marked with their version (their clients send no SEGMENT, and 2's no GENERATE_UUID);
 * protocol 1 (35 bytes, Vesta widths only) for a Vesta layout, whose widths say all. Otherwise
 * why the client cannot be served.
 */
export function welcomeFor(protocolVersion: number, welcome: Welcome): Welcome | string {
  if (protocolVersion === PROTOCOL_VERSION) return welcome;
  if (protocolVersion === 3 || protocolVersion === 2) return { ...welcome, protocolVersion };
  if (protocolVersion === 1) {
    const { fields } = welcome.layoutSpec;
    // Vesta's order, fields of 0 bits included (a custom Vesta layout), no reserved bits.
    const vesta =
      welcome.layout.genMethodBits > 0 &&
      fields.length === VESTA_FIELD_ORDER.length &&
      fields.every((f, i) => f.name === VESTA_FIELD_ORDER[i]);
    if (vesta) return { ...welcome, protocolVersion: 1 };
    return `this server issues ${welcome.layoutSpec.name ?? 'custom'} ids, whose layout needs protocol ${PROTOCOL_VERSION}; the client speaks 1`;
  }
  return `this server speaks protocol versions 1 to ${PROTOCOL_VERSION}, the client ${protocolVersion}`;
}
