// host.mjs: what the generators (gen-slog.mjs, gen-shapes.mjs) share as
// the host of Agoric's kernel.  No imports: loaded before SES's lockdown.

/**
 * The end of a kernel process: the kernel stopped, the swing-store
 * committed and closed, the slog sender flushed and closed.
 *
 * @param {{ controller: any, hostStorage: any, slogSender: any }} host
 */
export const closeKernel = async ({ controller, hostStorage, slogSender }) => {
  await controller.shutdown();
  hostStorage.commit();
  await hostStorage.close();
  await slogSender.forceFlush();
  await slogSender.shutdown();
};
