#!/usr/bin/env node
import 'reflect-metadata';
import { buildProgram } from './program.js';

await (await buildProgram(process.argv)).parseAsync(process.argv);
