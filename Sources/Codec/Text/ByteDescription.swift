/// A byte as an error message shows it: the character in quotes when it is printable ASCII
/// other than the space (`'!'`), else its value in hex (`byte 0x9`).
package func describeByte(_ byte: UInt8) -> String {
  if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
  return "byte 0x" + String(byte, radix: 16, uppercase: true)
}
