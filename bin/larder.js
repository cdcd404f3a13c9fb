#!/usr/bin/env node
// Loads the TypeScript entry point through tsx's loader, in this same process (signals reach it).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
