// Where API keys are kept, as main reports it to the window. Its own module because both IPC
// contracts (ipc-contract.ts and recruiter-ipc-contract.ts) name it: the recruiter contract
// taking it from ipc-contract.ts, which imports the recruiter contract, made an import loop.
export type SecretStoreKind = 'keychain' | 'safe-storage' | 'memory';
