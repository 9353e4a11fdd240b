/** The machine a run happened on, recorded beside its figures, and the time of day for the progress lines. */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { CAN_PIN } from './child.js';

/** CPU, cores, memory, Node and whether processes were pinned. */
export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  kernel: string;
  /** `taskset` pinning: system under test on core 0, load generator and mock upstream on core 1. */
  pinned: boolean;
  /** Cores this driver (the load generator) may run on, from /proc/self/status: proof of the pinning. */
  loadGeneratorCores: string;
  /** One-minute load average when the run started (other work on the machine skews results). */
  loadAverageAtStart: number;
}

/** This machine, now. */
export function describeMachine(): Machine {
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    kernel: release(),
    pinned: CAN_PIN,
    loadGeneratorCores: allowedCores(),
    loadAverageAtStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}

// Private: `Cpus_allowed_list` of this process, or 'unknown' off Linux.
function allowedCores(): string {
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The time of day, UTC, to the second: every progress line carries it, so a run's log shows what took long. */
export function clock(): string {
  return new Date().toISOString().slice(11, 19);
}
