import { LAYOUT_PRESETS, machineIdRanges, silentLogger, type Logger } from '@vesta/core';
import { issuableInstant, type ORIGINAL_ID_FORMULAS } from './originalIdFormulas.js';

/**
 * The options of a server (`startIdServer`, `startRestServer`) issuing under a non-Vesta preset
 * at a fixed {@link issuableInstant}: port 0, no state dir, silent, the first server machine id of
 * the preset's layout (`machineId`, to compute the original's ids with).
 */
export function presetServerOptions(preset: keyof typeof ORIGINAL_ID_FORMULAS): {
  port: 0;
  stateDir: false;
  logger: Logger;
  layout: keyof typeof ORIGINAL_ID_FORMULAS;
  machineId: number;
  clock: () => number;
} {
  const at = issuableInstant(preset);
  return {
    port: 0,
    stateDir: false,
    logger: silentLogger,
    layout: preset,
    machineId: machineIdRanges(LAYOUT_PRESETS[preset].layout.widths).server.min,
    clock: () => at,
  };
}
