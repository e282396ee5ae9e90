import * as fs from "fs";
import { PredictRequestBody, parsePredictRequestFile } from "../ops/predictRequest";
import { UserError } from "./errors";

/** The `:predict` body in `file`, named `--input FILE` in messages; a UserError with `exitCode` when it cannot be read or is not one. */
export function readPredictBodyFile(file: string, exitCode: number): PredictRequestBody {
    let text: string;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch (err) {
        throw new UserError(`--input ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, exitCode);
    }
    try {
        return parsePredictRequestFile(text, file);
    } catch (err) {
        throw new UserError(`--input ${(err as Error).message}`, exitCode);
    }
}
