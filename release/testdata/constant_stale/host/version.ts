export const SEAM_VERSION: string = "0.2.9";
