// builders-hook.mjs: a module resolve hook for gen-chain.mjs.
// @agoric/cosmic-swingset 0.42.0's launch-chain.js imports '@agoric/builders'
// for its side effects only, and @agoric/builders 0.2.0 on npm lacks the file
// its "main" names; the import would fail.  Resolve it to an empty module.
export async function resolve(specifier, context, next) {
  if (specifier === '@agoric/builders') {
    return { url: 'data:text/javascript,', shortCircuit: true };
  }
  return next(specifier, context);
}
