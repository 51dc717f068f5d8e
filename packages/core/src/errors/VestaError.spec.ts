import 'reflect-metadata';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import { TOKENS } from '../tokens.js';
import { VestaError } from './VestaError.js';
import { caughtAsync } from '@vesta/testkit';

const COPY_BRAND: unique symbol = Symbol.for('vesta.VestaError');

/** What a VestaError of a second installed copy of the package looks like: another class, the same brand. */
class VestaErrorOfAnotherCopy extends Error {
  readonly [COPY_BRAND] = true;
  readonly code = 'TIMEOUT';
}

describe('VestaError.is', () => {
  it('recognises a VestaError of another installed copy by its brand, where instanceof fails', () => {
    const foreign: unknown = new VestaErrorOfAnotherCopy('no answer');
    expect(foreign instanceof VestaError).toBe(false);
    expect(VestaError.is(foreign)).toBe(true);
    expect(VestaError.is(foreign, 'TIMEOUT')).toBe(true);
    expect(VestaError.is(foreign, 'INVALID_ARGUMENT')).toBe(false);
  });

  it('refuses errors and values that only look like one', () => {
    expect(VestaError.is(Object.assign(new Error('x'), { code: 'TIMEOUT' }))).toBe(false);
    expect(VestaError.is({ code: 'TIMEOUT' })).toBe(false);
    expect(VestaError.is(null)).toBe(false);
    expect(VestaError.is('TIMEOUT')).toBe(false);
  });
});

describe('VestaError.from', () => {
  it('keeps a VestaError and turns anything else into INTERNAL_ERROR with its cause', () => {
    const coded = new VestaError('TIMEOUT', 'late');
    expect(VestaError.from(coded)).toBe(coded);
    const cause = new TypeError('boom');
    const wrapped = VestaError.from(cause, 'while testing');
    expect(wrapped.code).toBe('INTERNAL_ERROR');
    expect(wrapped.message).toBe('while testing: TypeError: boom');
    expect(wrapped.cause).toBe(cause);
  });
});

describe('createIdService', () => {
  it('reports an unexpected failure of a user module as INTERNAL_ERROR, not as bad options', async () => {
    const failing = new ContainerModule(({ rebindSync }) => {
      rebindSync(TOKENS.Timer).toDynamicValue(() => {
        throw new TypeError('a bug in a user module');
      });
    });
    const error = await caughtAsync(() => createIdService({ machineId: 90, modules: [failing] }));
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toContain('a bug in a user module');
  });
});
