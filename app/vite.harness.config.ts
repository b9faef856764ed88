// The hosted-mode test harness (tests/host-harness.html): a chat client's page, one file.
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  root: "tests",
  plugins: [viteSingleFile({ removeViteModuleLoader: true })],
  build: {
    target: "es2022",
    outDir: "../dist-harness",
    emptyOutDir: true,
    reportCompressedSize: false,
    rollupOptions: { input: "tests/host-harness.html" },
  },
});
