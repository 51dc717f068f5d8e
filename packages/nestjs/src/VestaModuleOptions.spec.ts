import { Test } from '@nestjs/testing';
import { codeOf, rejection } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { VestaModule } from './VestaModule.js';
import type { VestaModuleOptions } from './VestaModuleOptions.js';

describe('VestaModule options', () => {
  it.each<[string, unknown]>([
    ['neither service', {}],
    ['both services', { embedded: { machineId: 1 }, client: { servers: ['127.0.0.1:7070'] } }],
    ['an unknown key', { embedded: { machineId: 1 }, global: false }],
    ['no object', undefined],
  ])('refuses %s with INVALID_OPTIONS when forRoot is called', (_, options) => {
    expect(codeOf(() => VestaModule.forRoot(options as VestaModuleOptions))).toBe(
      'INVALID_OPTIONS',
    );
  });

  it("fails the application's start with INVALID_OPTIONS when forRootAsync's factory gives both", async () => {
    const compiling = Test.createTestingModule({
      imports: [
        VestaModule.forRootAsync({
          useFactory: () =>
            ({
              embedded: { machineId: 1 },
              client: { servers: [] },
            }) as unknown as VestaModuleOptions,
        }),
      ],
    }).compile();
    expect((await rejection(compiling)).code).toBe('INVALID_OPTIONS');
  });

  it("passes on the service's own errors, with their codes", async () => {
    const compiling = Test.createTestingModule({
      imports: [VestaModule.forRoot({ embedded: { machineId: 1000 } })],
    }).compile();
    expect((await rejection(compiling)).code).toBe('MACHINE_ID_OUT_OF_RANGE');
  });
});
