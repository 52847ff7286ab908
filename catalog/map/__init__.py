"""The interactive three-layer map: figure data, drawing and pages."""
