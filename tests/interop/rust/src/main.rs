//! arrow-rs (the arrow-ipc crate, with its lz4 and zstd features) reading and writing Arrow IPC
//! streams for the interop suite (tests/interop/test_arrow_rs_interop.py), with nothing of
//! Sluice in it.
//!
//!   decode LIST    each line of LIST is "INPUT<TAB>OUTPUT": arrow-rs decodes the stream INPUT
//!                  (LZ4 frame and zstd body compression included) and writes what it decoded to
//!                  OUTPUT, uncompressed; if it refuses INPUT, OUTPUT.error holds why.
//!   encode INPUT OUTPUT CODEC
//!                  decodes INPUT and writes it to OUTPUT with arrow-rs's own writer and body
//!                  compression CODEC (none, lz4 or zstd).

use std::error::Error;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::process::ExitCode;

use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;

type Failure = Box<dyn Error>;

/// Decodes `input` and writes every batch to `output` with `compression`.
fn transcode(input: &str, output: &str, compression: Option<CompressionType>) -> Result<(), Failure> {
    let reader = StreamReader::try_new(BufReader::new(File::open(input)?), None)?;
    let options = IpcWriteOptions::default().try_with_compression(compression)?;
    let sink = BufWriter::new(File::create(output)?);
    let mut writer = StreamWriter::try_new_with_options(sink, reader.schema().as_ref(), options)?;
    for batch in reader {
        writer.write(&batch?)?;
    }
    writer.finish()?;
    Ok(())
}

fn codec_named(name: &str) -> Result<Option<CompressionType>, Failure> {
    match name {
        "none" => Ok(None),
        "lz4" => Ok(Some(CompressionType::LZ4_FRAME)),
        "zstd" => Ok(Some(CompressionType::ZSTD)),
        other => Err(format!("unknown codec {other}").into()),
    }
}

fn decode_all(listing: &str) -> Result<(), Failure> {
    for line in std::fs::read_to_string(listing)?.lines() {
        let Some((input, output)) = line.split_once('\t') else { continue };
        if let Err(error) = transcode(input, output, None) {
            let _ = std::fs::remove_file(output);
            std::fs::write(format!("{output}.error"), format!("{error}\n"))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["decode", listing] => decode_all(listing),
        ["encode", input, output, codec] => {
            codec_named(codec).and_then(|compression| transcode(input, output, compression))
        }
        _ => Err("usage: sluice-arrow-rs-interop decode LIST | encode INPUT OUTPUT CODEC".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
