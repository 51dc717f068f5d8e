import { ERROR_CODES, type VestaErrorCode } from './errorCodes.js';

const CODE_OF_WIRE: ReadonlyMap<number, VestaErrorCode> = new Map(
  (Object.keys(ERROR_CODES) as VestaErrorCode[]).map((code) => [ERROR_CODES[code].wire, code]),
);

/** The number of an error code in the TCP protocol's error frames: its row in {@link ERROR_CODES}. */
export function wireOf(code: VestaErrorCode): number {
  return ERROR_CODES[code].wire;
}

/**
 * The error code of a wire number ({@link wireOf} read backwards), or undefined for a number
 * this version does not know.
 */
export function codeOfWire(wire: number): VestaErrorCode | undefined {
  return CODE_OF_WIRE.get(wire);
}
