import { LAYOUT_PRESETS } from '@vesta/core';
import { MAX_PEAK_LAYOUT, uidGeneratorLayout } from '@vesta/core/kit';
import { describe, expect, it } from 'vitest';
import { caught } from '@vesta/testkit';
import { HEADER_BYTES } from './protocolConstants.js';
import { WelcomeMessage, type Welcome } from './WelcomeMessage.js';

function welcome(over: Partial<Welcome>): Welcome {
  return {
    protocolVersion: 2,
    machine: 1000,
    genMethod: 1,
    type: 0,
    version: 0,
    layout: MAX_PEAK_LAYOUT.widths,
    layoutSpec: MAX_PEAK_LAYOUT.spec,
    epochMs: Date.UTC(2025, 0, 1),
    maxBatch: 1000,
    maxInFlight: 256,
    ...over,
  };
}

const payloadOf = (w: Welcome): Buffer => WelcomeMessage.encode(1, w).subarray(HEADER_BYTES);

describe('WelcomeMessage', () => {
  it.each(Object.values(LAYOUT_PRESETS))('carries the full $name layout in protocol 2', (p) => {
    const w = welcome({
      machine: p.layout.machine.max,
      genMethod: 0,
      type: p.layout.idType,
      layout: p.layout.widths,
      layoutSpec: p.layout.spec,
      epochMs: p.epochMs,
    });
    expect(WelcomeMessage.decode(payloadOf(w))).toEqual(w);
  });

  it("carries a machine id past 65535 (uid-generator's 22-bit workers) and a custom layout's spec", () => {
    const layout = uidGeneratorLayout({ timeBits: 29, workerBits: 21 });
    const w = welcome({ machine: 2_000_000, layout: layout.widths, layoutSpec: layout.spec });
    expect(WelcomeMessage.decode(payloadOf(w))).toEqual(w);
  });

  it('keeps the 35 bytes of protocol 1, read back as the Vesta layout of its widths', () => {
    const payload = payloadOf(welcome({ protocolVersion: 1 }));
    expect(payload.length).toBe(35);
    expect(WelcomeMessage.decode(payload)).toEqual(
      welcome({
        protocolVersion: 1,
        layoutSpec: {
          fields: MAX_PEAK_LAYOUT.spec.fields,
          unitMs: 1000,
          type: 0,
        },
      }),
    );
  });

  it.each<[string, (p: Buffer) => Buffer]>([
    ['cut inside the layout', (p) => p.subarray(0, p.length - 3)],
    ['with a byte after the name', (p) => Buffer.concat([p, Buffer.from([0])])],
    ['with an unknown field code', (p) => Buffer.from(p).fill(9, 44, 45)],
    ['of protocol 1 but longer than 35 bytes', (p) => Buffer.from(p).fill(0, 0, 1).fill(1, 1, 2)],
  ])('refuses a welcome %s with PROTOCOL_ERROR', (_name, spoil) => {
    const payload = spoil(payloadOf(welcome({})));
    expect(caught(() => WelcomeMessage.decode(payload)).code).toBe('PROTOCOL_ERROR');
  });
});
