/** The timeline's fixed measures, in CSS pixels. */
export const LABEL_W = 112;
export const LANE_H = 76;
export const ROW_LANE_H = 56;
export const AXIS_H = 28;
