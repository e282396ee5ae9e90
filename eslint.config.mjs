import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
    { ignores: ["node_modules/**", "dist/**", "tools/**/build/**", ".cache/**", ".tfs/**"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        files: ["**/*.ts"],
        rules: {
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
            "eqeqeq": ["error", "smart"],
            "no-console": "off",
        },
    },
    {
        files: ["bin/*.js", "**/*.cjs"],
        languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable", __dirname: "readonly", process: "readonly", console: "readonly" } },
        rules: { "@typescript-eslint/no-require-imports": "off" },
    },
);
