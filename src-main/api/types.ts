// Transitional: the delivery API's types are declared once, in src-shared/delivery-api.ts
// (inferred from its schemas). This re-export keeps importers written before the move
// compiling; import from src-shared directly, and delete this file when nothing uses it.
export type * from '../../src-shared/delivery-api';
