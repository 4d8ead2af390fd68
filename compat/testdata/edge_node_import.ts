// Fixture: imports a Node built-in, which a Worker without nodejs_compat lacks.
import { EventEmitter } from "node:events";

export const bus: EventEmitter = new EventEmitter();
