// Builds the App into one self-contained HTML file (every script and style inline), which the
// server serves as ui://virtual-computer/computer.html and /dashboard.html.
//   npx vite build --outDir <dir>   → <dir>/computer.html
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  plugins: [viteSingleFile({ removeViteModuleLoader: true })],
  build: {
    // noVNC's ES modules use top-level await.
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    reportCompressedSize: false,
    rollupOptions: { input: "index.html" },
  },
});
