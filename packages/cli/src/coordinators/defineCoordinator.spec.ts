import { caughtAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { defineCoordinator } from './defineCoordinator.js';

describe('defineCoordinator', () => {
  // A package that is not installed, imported for real: what a slim install without the
  // coordinator's optional package meets.
  const absent = defineCoordinator({
    schemes: ['absent'],
    form: 'absent://host',
    example: 'absent://host',
    package: '@vesta/absent-coordinator',
    parse: (url) => ({ url }),
    load: () => import(String('@vesta/absent-coordinator')),
    module: () => {
      throw new Error('never built');
    },
    admin: () => {
      throw new Error('never built');
    },
  });

  it('reads the URL at once but imports the package only on first use', () => {
    expect(
      absent.machineIdModule('absent://host', { key: 'k', stateDir: undefined, logger: undefined }),
    ).toBeDefined();
    expect(absent.admin('absent://host')).toBeDefined();
  });

  it('refuses a start whose coordinator package is missing with PACKAGE_MISSING, naming the npm install', async () => {
    const module = absent.machineIdModule('absent://host', {
      key: 'k',
      stateDir: undefined,
      logger: undefined,
    });
    const error = await caughtAsync(() => module.load());
    expect(error.code).toBe('PACKAGE_MISSING');
    expect(error.message).toBe(
      'absent:// coordinators need the package @vesta/absent-coordinator, which is not installed: npm install @vesta/absent-coordinator',
    );
    expect((await caughtAsync(() => absent.admin('absent://host').list())).code).toBe(
      'PACKAGE_MISSING',
    );
  });
});
