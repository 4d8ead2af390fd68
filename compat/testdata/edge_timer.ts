// Fixture: sets a timer at module top level (edge hosts refuse it).
const tick = setTimeout(() => {}, 0);
clearTimeout(tick);
export const ticked = true;
