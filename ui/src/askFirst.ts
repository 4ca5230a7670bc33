// Imported first by main.tsx, so it runs before React's own modules: the first screen's reads go
// out while the rest of the script is still being run (shell/startReads.ts).
import { askStartReads } from "./shell/startReads";

askStartReads();
