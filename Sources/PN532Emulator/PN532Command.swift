/// The PN532 command codes the emulator knows (NXP UM0701-02 §7), by the name the manual uses.
public enum PN532Command: UInt8, CaseIterable, Sendable {
  case diagnose = 0x00
  case getFirmwareVersion = 0x02
  case getGeneralStatus = 0x04
  case readRegister = 0x06
  case writeRegister = 0x08
  case readGPIO = 0x0C
  case writeGPIO = 0x0E
  case setSerialBaudRate = 0x10
  case setParameters = 0x12
  case samConfiguration = 0x14
  case powerDown = 0x16
  case rfConfiguration = 0x32
  case rfRegulationTest = 0x58
  case inJumpForDEP = 0x56
  case inJumpForPSL = 0x46
  case inListPassiveTarget = 0x4A
  case inATR = 0x50
  case inPSL = 0x4E
  case inDataExchange = 0x40
  case inCommunicateThru = 0x42
  case inDeselect = 0x44
  case inRelease = 0x52
  case inSelect = 0x54
  case inAutoPoll = 0x60
  case tgInitAsTarget = 0x8C
  case tgSetGeneralBytes = 0x92
  case tgGetData = 0x86
  case tgSetData = 0x8E
  case tgSetMetaData = 0x94
  case tgGetInitiatorCommand = 0x88
  case tgResponseToInitiator = 0x90
  case tgGetTargetStatus = 0x8A
}
