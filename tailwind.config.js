/** Tailwind configuration for Ounce's server-rendered pages. */
module.exports = {
  content: ["./views/**/*.templ", "./handlers/**/*.go", "./static/js/app.js", "./static/js/sw.js", "./static/offline.html"],
  darkMode: "media",
  // Classes built from data (metal-gold, …) that the scanner cannot see in templates.
  safelist: ["metal-gold", "metal-silver", "metal-platinum", "metal-palladium"],
  theme: {
    extend: {
      fontFamily: {
        sans: ["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
      },
      colors: {
        gold: "#d4a017",
        silver: "#8a9bb0",
        platinum: "#6b8e8e",
        palladium: "#9b7bb5",
      },
    },
  },
  plugins: [],
};
