// bob: the pipelining target (enablePipelining in the config), so the
// kernel delivers messages sent to bob's still-unresolved result promises
// to bob directly.  Each deposit also calls alice: vats talking to vats.
import { E, Far } from '@endo/far';

export const buildRootObject = () => {
  let alice;
  const makeAccount = id => {
    let balance = 0n;
    return Far('account', {
      deposit: async amount => {
        balance += amount;
        await E(alice).record(`acct-${id}`, amount);
        return balance;
      },
      withdraw: amount => {
        if (amount > balance) {
          // Rejects the caller's result promise with an Error: liveslots
          // logs the error it sends ("Logging sent error stack").
          throw Error(`account ${id}: insufficient funds: ${amount} > ${balance}`);
        }
        balance -= amount;
        return balance;
      },
      balance: () => balance,
    });
  };
  return Far('bob', {
    setAlice: a => {
      alice = a;
    },
    makeAccount,
  });
};
