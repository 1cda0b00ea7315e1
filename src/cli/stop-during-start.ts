/**
 * A stop (SIGTERM, SIGINT) that comes while a process is still starting: loading its modules,
 * connecting, bundling. Without a handler Node would die of the signal (the supervisor then reports
 * "exited (SIGTERM)" instead of a clean stop), and once Temporal's Runtime is installed its handler
 * would stop workers that do not run yet, leaving the one created next running. Imported first, this
 * notes the request; the entry point asks `stopRequestedDuringStart` once it runs and then stops
 * cleanly at once. Asking it also hands the signals over to the handlers installed by then.
 */
let requested = false;
const note = (): void => {
  requested = true;
};
process.on('SIGTERM', note);
process.on('SIGINT', note);

export function stopRequestedDuringStart(): boolean {
  process.off('SIGTERM', note);
  process.off('SIGINT', note);
  return requested;
}
