/** What an install brings in below a node_modules folder: bytes (apparent file sizes) and packages. */
export function footprint(dir: string): { bytes: number; packages: number };
